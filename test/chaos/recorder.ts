// Every API request the chaos load makes, with the node that answered (or did not), so the run can
// check afterwards that each answer had a documented status and the error body.
import type { ClusterNode } from "../scale/cluster.js";

export interface Call {
  /** Operation as the OpenAPI document names its path: `POST /v1/leads/{leadId}`. */
  op: string;
  node: ClusterNode;
  start: number;
  end: number;
  status?: number;
  body?: unknown;
  /** Network failure: no answer at all. */
  error?: string;
  /** The node was SIGKILLed while the request was open (its loss is expected). */
  nodeKilled?: boolean;
  /** The node died on its own while the request was open (counted with the crash); set at the end. */
  nodeCrashed?: boolean;
}

export class Recorder {
  readonly calls: Call[] = [];
  /** When each SIGKILLed node was killed. */
  readonly killedAt = new Map<ClusterNode, number>();
  /** When each node that died on its own (not SIGKILLed by the run) exited. */
  readonly crashedAt = new Map<ClusterNode, number>();
  /** Exit time of every node seen. */
  readonly exitedAt = new Map<ClusterNode, number>();

  /** Marks the calls lost with a node that died on its own (known only once it is found dead). */
  markCrashLosses(): void {
    for (const call of this.calls) {
      const at = this.crashedAt.get(call.node);
      // The parent sees the exit late on a loaded machine, after the client saw the reset.
      call.nodeCrashed = call.status === undefined && at !== undefined && call.end >= at - 10_000;
    }
  }
  #next = 0;

  constructor(private readonly apis: () => ClusterNode[]) {}

  /** Round robin over the APIs alive right now. */
  pick(): ClusterNode {
    const live = this.apis().filter((n) => !this.killedAt.has(n) && !this.crashedAt.has(n));
    if (live.length === 0) throw new Error("no API process is alive");
    return live[this.#next++ % live.length]!;
  }

  async request(
    op: string,
    path: string,
    init: { key?: string; bearer?: string; body?: unknown; type?: string; timeoutMs?: number } = {},
  ): Promise<Call> {
    const [method] = op.split(" ");
    // With every API dead (killed and crashed at once, restarts slow on a loaded machine), wait.
    let node: ClusterNode | undefined;
    while (!node) {
      try {
        node = this.pick();
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const headers: Record<string, string> = {};
    if (init.key) headers["x-api-key"] = init.key;
    if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
    let payload: string | undefined;
    if (init.body !== undefined) {
      headers["content-type"] = init.type ?? "application/json";
      payload = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    }
    const call: Call = { op, node, start: Date.now(), end: 0 };
    try {
      const res = await fetch(`${node.url}${path}`, {
        method: method!,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        signal: AbortSignal.timeout(init.timeoutMs ?? 90_000),
      });
      call.status = res.status;
      const text = await res.text();
      try {
        call.body = JSON.parse(text);
      } catch {
        call.body = text;
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      call.error = cause?.code ?? (error instanceof Error ? error.message : String(error));
    }
    call.end = Date.now();
    const killedAt = this.killedAt.get(node);
    call.nodeKilled = killedAt !== undefined && killedAt <= call.end;
    this.calls.push(call);
    return call;
  }
}
