// The installed command's stand-in for ssh2 (scripts/build-cli.mjs): docker-modem loads it at start, and
// only a `ssh://` Docker host would use it, which Toolsmith does not offer.
class Client {
  constructor() {
    throw new Error('Docker over ssh:// is not supported: use unix:// or tcp:// with TLS');
  }
}
module.exports = { Client };
