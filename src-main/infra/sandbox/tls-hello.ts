/**
 * Reads the server name from the first TLS record a client sends through a CONNECT tunnel (RFC 8446
 * 4.1.2 ClientHello, RFC 6066 3 server_name), so the egress proxy can hold the tunnel to the name it
 * allowed. Pure and bounds-checked: any byte string gets an answer, never an exception.
 */
import { isIP } from 'node:net';

export type HelloRead =
  /** Not a whole first record yet: wait for more bytes. */
  | { state: 'more' }
  /** A ClientHello; `serverName` is its host_name (lower case, no trailing dot), if it sent one. */
  | { state: 'hello'; serverName: string | undefined }
  | { state: 'refused'; reason: string };

/** The largest TLS record a client may send (2^14 bytes of plaintext, RFC 8446 5.1). */
const MAX_RECORD = 16384;
const HANDSHAKE = 0x16;
const CLIENT_HELLO = 0x01;
const EXT_SERVER_NAME = 0x0000;
/** encrypted_client_hello (RFC 9849): the real server name would be hidden from the proxy. */
const EXT_ECH = 0xfe0d;
const HOST_NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

class Malformed extends Error {}

/** A cursor over the ClientHello that throws `Malformed` instead of reading past an end. */
class Reader {
  private readonly b: Buffer;
  p: number;
  private readonly end: number;
  constructor(b: Buffer, p: number, end: number) {
    this.b = b;
    this.p = p;
    this.end = end;
  }
  private need(n: number): void {
    if (this.p + n > this.end) throw new Malformed('a length runs past the end of the ClientHello');
  }
  u8(): number {
    this.need(1);
    return this.b[this.p++] as number;
  }
  u16(): number {
    this.need(2);
    const v = this.b.readUInt16BE(this.p);
    this.p += 2;
    return v;
  }
  u24(): number {
    this.need(3);
    const v = this.b.readUIntBE(this.p, 3);
    this.p += 3;
    return v;
  }
  skip(n: number): void {
    this.need(n);
    this.p += n;
  }
  /** A sub-reader over the next `n` bytes (which this one skips). */
  take(n: number): Reader {
    this.need(n);
    const r = new Reader(this.b, this.p, this.p + n);
    this.p += n;
    return r;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return v;
  }
  get left(): number {
    return this.end - this.p;
  }
}

/**
 * What the first bytes of a tunnel are. Only a ClientHello that fits its first record is accepted
 * (every common client's does); an encrypted ClientHello, two server_name extensions, a name that is
 * not a host name, or anything that is not TLS is refused with the reason.
 */
export function readClientHello(buf: Buffer): HelloRead {
  if (buf.length === 0) return { state: 'more' };
  if (buf[0] !== HANDSHAKE)
    return {
      state: 'refused',
      reason: 'the tunnel does not start with a TLS handshake (CONNECT carries TLS only)',
    };
  if (buf.length < 5) return { state: 'more' };
  const length = buf.readUInt16BE(3);
  if (length > MAX_RECORD)
    return { state: 'refused', reason: `a TLS record of ${length} bytes is over the limit` };
  if (buf.length < 5 + length) return { state: 'more' };
  try {
    const rec = new Reader(buf, 5, 5 + length);
    if (rec.u8() !== CLIENT_HELLO) throw new Malformed('the first handshake message is not a ClientHello');
    const helloLength = rec.u24();
    if (helloLength > rec.left) throw new Malformed('the ClientHello does not fit in its first TLS record');
    const h = rec.take(helloLength);
    h.skip(2 + 32); // legacy_version, random
    h.skip(h.u8()); // legacy_session_id
    h.skip(h.u16()); // cipher_suites
    h.skip(h.u8()); // legacy_compression_methods
    if (h.left === 0) return { state: 'hello', serverName: undefined };
    const exts = h.take(h.u16());
    let serverName: string | undefined;
    let seenName = false;
    while (exts.left > 0) {
      const type = exts.u16();
      const data = exts.take(exts.u16());
      if (type === EXT_ECH) throw new Malformed('an encrypted ClientHello hides the server name');
      if (type !== EXT_SERVER_NAME) continue;
      if (seenName) throw new Malformed('two server_name extensions');
      seenName = true;
      const list = data.take(data.u16());
      while (list.left > 0) {
        const nameType = list.u8();
        const name = list.bytes(list.u16()).toString('latin1');
        if (nameType !== 0) continue;
        if (serverName !== undefined) throw new Malformed('two host names in server_name');
        serverName = name.toLowerCase().replace(/\.$/, '');
        if (!HOST_NAME.test(serverName))
          throw new Malformed(`the server name ${JSON.stringify(name.slice(0, 80))} is not a host name`);
      }
    }
    return { state: 'hello', serverName };
  } catch (e) {
    if (e instanceof Malformed) return { state: 'refused', reason: e.message };
    throw e;
  }
}

/**
 * Why a tunnel to `host` (as CONNECT named it) may not carry this ClientHello: a named host must be the
 * server name, an IP literal must come with none (RFC 6066 sends no name for addresses; a name there
 * would pick another virtual host behind the allowed address).
 */
export function serverNameMismatch(host: string, serverName: string | undefined): string | undefined {
  const want = host.toLowerCase().replace(/\.$/, '');
  if (isIP(want.replace(/^\[|\]$/g, '')) !== 0) {
    return serverName === undefined
      ? undefined
      : `the TLS server name ${serverName} is not the address ${host} the tunnel was opened to`;
  }
  if (serverName === undefined) return `the ClientHello names no server, the tunnel was opened to ${host}`;
  return serverName === want
    ? undefined
    : `the TLS server name ${serverName} is not ${host}, the tunnel's host`;
}
