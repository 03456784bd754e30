/** Limits of `toolsmith mcp --http`, apart so the CLI can check options without loading the HTTP server. */

/** Loopback names `--host` accepts: the server has no TLS and is meant for clients on this machine. */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'] as const;
/** Shortest token `--token-env` accepts (the generated one is 32 random bytes). */
export const MIN_TOKEN_LENGTH = 16;
