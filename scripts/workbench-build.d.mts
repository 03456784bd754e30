export function buildOut(root: string): string;
export function inputsStamp(root: string): string;
export function upToDate(root: string, out?: string, stamp?: string): boolean;
export function buildWorkbench(
  root: string,
  opts?: { force?: boolean },
): Promise<{ built: boolean; ms: number }>;
