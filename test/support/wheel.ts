/** Builds a tiny pure-Python wheel (a stored zip) for tests: no pip, no network, no Python on the host. */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/** Writes `<name>-<version>-py3-none-any.whl` into `dir` with the given module files; returns its path. */
export function writeWheel(
  dir: string,
  name: string,
  version: string,
  files: Record<string, string>,
): string {
  const info = `${name}-${version}.dist-info`;
  const entries: [string, Buffer][] = Object.entries(files).map(([p, t]) => [p, Buffer.from(t)]);
  entries.push([
    `${info}/METADATA`,
    Buffer.from(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`),
  ]);
  entries.push([
    `${info}/WHEEL`,
    Buffer.from('Wheel-Version: 1.0\nGenerator: toolsmith-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
  ]);
  const record = entries.map(([p, b]) => {
    const digest = createHash('sha256').update(b).digest('base64url');
    return `${p},sha256=${digest},${b.length}`;
  });
  record.push(`${info}/RECORD,,`);
  entries.push([`${info}/RECORD`, Buffer.from(record.join('\n') + '\n')]);
  const path = join(dir, `${name}-${version}-py3-none-any.whl`);
  writeFileSync(path, zip(entries));
  return path;
}

/** A zip archive with stored (uncompressed) entries. */
function zip(entries: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const n = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, data);
    centrals.push(central, n);
    offset += 30 + n.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
