// Preloaded into the Portkey gateway's process: a server told only a port listens on 127.0.0.1,
// not on every interface, so the bench never serves beyond this machine.
import * as Net from "node:net"

const listen = Net.Server.prototype.listen
Net.Server.prototype.listen = function(...args) {
  if (typeof args[0] === "number" && typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1")
  if (typeof args[0] === "object" && args[0] !== null && args[0].host === undefined) {
    args[0] = { ...args[0], host: "127.0.0.1" }
  }
  return listen.apply(this, args)
}
