// The widget's answer for one address within a deadline: the quick facts first (no network), then
// a recent finished answer for the same address, then the email engine's interactive probe. When
// the probe has not settled by the deadline the answer is unknown/deadline (fail open) and the
// probe goes on: its result is kept, so the visitor's next look (on submit) is instant. The engine
// shares a probe already under way for the same address, so looks never start a second one.
import type { EmailVerificationProvider } from "../checks/email/email.types.js";
import type { KeyMode } from "../keys/key-policy.js";
import {
  fromEmailVerdict,
  type QuickLook,
  quickLook,
  scriptedVerdict,
  type WidgetVerdict,
} from "./widget-verdict.js";

const MAX_RECENT = 100_000;

export interface WidgetCheckerDeps {
  email: EmailVerificationProvider;
  nowMs: () => number;
  recentResultTtlMs: number;
  onError: (error: unknown, context: string) => void;
}

export class WidgetChecker {
  private readonly recent = new Map<string, { verdict: WidgetVerdict; untilMs: number }>();

  constructor(private readonly deps: WidgetCheckerDeps) {}

  /**
   * The answer when it is known without waiting: the quick look's own, test mode's scripted one
   * (but `slow@`), or a recent finished result. Undefined: ask look().
   */
  known(mode: KeyMode, quick: QuickLook): WidgetVerdict | undefined {
    if (quick.kind === "answer") return quick.verdict;
    if (mode === "test") {
      const scripted = scriptedVerdict(quick.parsed, quick.facts);
      return scripted === "slow" ? undefined : scripted;
    }
    const hit = this.recent.get(quick.parsed.email.toLowerCase());
    return hit && hit.untilMs > this.deps.nowMs() ? hit.verdict : undefined;
  }

  /** `quick`: the caller's quickLook of the same address, when it already made one. */
  async look(
    email: string,
    deadlineMs: number,
    mode: KeyMode,
    quick: QuickLook = quickLook(email),
  ): Promise<WidgetVerdict> {
    if (quick.kind === "answer") return quick.verdict;
    const { parsed, facts } = quick;
    if (mode === "test") {
      const scripted = scriptedVerdict(parsed, facts);
      if (scripted !== "slow") return scripted;
      await new Promise((resolve) => setTimeout(resolve, deadlineMs));
      return facts;
    }
    const key = parsed.email.toLowerCase();
    const hit = this.recent.get(key);
    if (hit && hit.untilMs > this.deps.nowMs()) return hit.verdict;
    const probe = this.deps.email.verify(parsed.email).then((verdict) => {
      const answer = fromEmailVerdict(verdict);
      if (answer.status !== "unknown") this.remember(key, answer);
      return answer;
    });
    probe.catch((error: unknown) => this.deps.onError(error, "widget probe failed"));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<WidgetVerdict>((resolve) => {
      timer = setTimeout(() => resolve(facts), deadlineMs);
    });
    try {
      return await Promise.race([probe.catch(() => facts), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(key: string, verdict: WidgetVerdict): void {
    if (this.deps.recentResultTtlMs <= 0) return;
    if (this.recent.size >= MAX_RECENT) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    this.recent.set(key, { verdict, untilMs: this.deps.nowMs() + this.deps.recentResultTtlMs });
  }
}
