declare module "dns-socket" {
  import type { Socket } from "node:dgram";
  import type { Packet } from "dns-packet";

  interface DnsSocketOptions {
    timeout?: number;
    retries?: number;
    maxQueries?: number;
    maxRedirects?: number;
    timeoutChecks?: number;
    socket?: Socket;
  }

  class DnsSocket {
    static RECURSION_DESIRED: number;
    constructor(options?: DnsSocketOptions);
    query(
      query: Partial<Packet> & { questions: { type: string; name: string }[] },
      port: number,
      host: string,
      callback: (err: Error | null, response?: Packet) => void,
    ): number;
    cancel(id: number): void;
    unref(): void;
    destroy(onClose?: () => void): void;
  }

  export default DnsSocket;
}
