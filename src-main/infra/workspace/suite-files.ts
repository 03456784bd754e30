/** Suite files in the workspace: `suites/NAME.toml`. */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWrite, checkName, workspaceFolder } from './files.ts';
import { folderProblem, readWorkspaceText, WorkspaceFileError } from './atomic.ts';

export class SuiteFiles {
  readonly dir: string;
  private readonly root: string;

  constructor(workspaceRoot: string) {
    this.root = workspaceRoot;
    this.dir = join(workspaceRoot, 'suites');
  }

  names(): string[] {
    if (!existsSync(this.dir)) return [];
    const problem = folderProblem(this.dir);
    if (problem) throw new WorkspaceFileError(problem, this.dir);
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.toml') && !f.startsWith('.'))
      .map((f) => f.slice(0, -5))
      .sort();
  }

  file(name: string): string {
    return join(this.dir, `${checkName('suite', name)}.toml`);
  }

  exists(name: string): boolean {
    return existsSync(this.file(name));
  }

  read(name: string): string {
    return readWorkspaceText(this.file(name));
  }

  write(name: string, text: string): string {
    const file = this.file(name);
    workspaceFolder(this.root, this.dir, `suite ${name}`);
    atomicWrite(file, text);
    return file;
  }

  remove(name: string): void {
    rmSync(this.file(name));
  }
}
