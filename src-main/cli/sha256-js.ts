/**
 * @noble/hashes's SHA-256 alone (key-parts.ts `loadJsSha256` imports this module): named exports, so that
 * the CLI's bundle keeps only SHA-256 of the package's sha2 module (~4 KB, not its ~25 KB).
 */
export { sha256 } from '@noble/hashes/sha2.js';
export { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
