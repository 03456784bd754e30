// Whether this process is in its terminal's foreground process group: a Ctrl-C there reaches its
// children too (they are in the same group), so a launcher that passes SIGINT on would send it twice.
// Used by bin/toolsmith.mjs (the launcher that runs the shipped Node 24 as a child) and by
// scripts/start.mjs (`npm start`, which runs `toolsmith serve` as a child).
import { readFileSync } from 'node:fs';

/**
 * Linux: /proc/self/stat's pgrp and tpgid (the terminal's foreground group; no terminal: -1).
 * Elsewhere, or unknown: true (the child gets the terminal's Ctrl-C, as before).
 */
export function terminalForeground() {
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After the command name in parentheses: state ppid pgrp session tty_nr tpgid ...
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[5]) > 0 && f[5] === f[2];
  } catch {
    return true;
  }
}
