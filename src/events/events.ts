// The internal event bus. Events are written to the `events` outbox (events.repo.ts) in the same
// transaction as the change that caused them, so none is lost and none fires for a rolled-back change; the
// webhook dispatcher fans them out to subscribed endpoints. In-process listeners get a hint
// once the transaction has committed (runInTransaction's afterCommit), never before: the hint
// may be acted on at once by another connection. A listener that throws is reported, not thrown.
import { isTestSpace, liveAccountOf } from "../lib/data-space.js";
import { newId } from "../lib/ids.js";
import type { Executor } from "../storage/executor.js";
import type { EventsTable } from "../storage/schema.js";
import { afterCommitOf } from "../storage/transaction.js";
import type { EventsRepo } from "./events.repo.js";

export const EVENT_TYPES = [
  "validation.started",
  "validation.complete",
  "validation.failed",
  "lead.created",
  "lead.updated",
  "lead.validated",
  "credits.low",
  "credits.depleted",
  "batch.started",
  "batch.complete",
  "batch.progress",
  "sync.completed",
  "sync.failed",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  id: string;
  type: EventType;
  accountId: string;
  /** The payload as delivered: always carries `event`, `eventId`, `userId`, `livemode` and `timestamp`. */
  payload: Record<string, unknown>;
  createdAt: string;
}

export type EventListener = (event: DomainEvent) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  /** `onListenerError`: where a listener's error goes (the process's logger). */
  constructor(
    private readonly outbox: EventsRepo,
    private readonly onListenerError: (error: unknown, event: DomainEvent) => void = (error) =>
      console.error("event listener failed", error),
  ) {}

  /** Records an event in the outbox using `executor` (pass the transaction of the change). */
  async emit(
    executor: Executor,
    type: EventType,
    accountId: string,
    data: Record<string, unknown>,
    now: Date,
  ): Promise<DomainEvent> {
    const { row, event } = newEvent(type, accountId, data, now);
    await this.outbox.insert(executor, row);
    this.hintAfterCommit(executor, event);
    return event;
  }

  /** Records several events in one go (bulk operations). */
  async emitMany(
    executor: Executor,
    events: { type: EventType; accountId: string; data: Record<string, unknown> }[],
    now: Date,
  ): Promise<void> {
    const created = events.map((e) => newEvent(e.type, e.accountId, e.data, now));
    await this.outbox.insertMany(
      executor,
      created.map((c) => c.row),
    );
    // Listeners take events as hints to look at the outbox: one hint covers the lot.
    const last = created.at(-1);
    if (last) this.hintAfterCommit(executor, last.event);
  }

  /** In-process listeners get a hint; the outbox stays the source of truth. */
  private hintAfterCommit(executor: Executor, event: DomainEvent): void {
    if (this.listeners.size === 0) return;
    afterCommitOf(executor)?.(() => {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.onListenerError(error, event);
        }
      }
    });
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** An event and its outbox row. */
function newEvent(
  type: EventType,
  accountId: string,
  data: Record<string, unknown>,
  now: Date,
): { row: EventsTable; event: DomainEvent } {
  const id = newId("evt", now.getTime());
  const createdAt = now.toISOString();
  // `livemode: false` marks a test data space's events (ADR 0051); `userId` is the account either way.
  const payload = {
    event: type,
    eventId: id,
    userId: liveAccountOf(accountId),
    livemode: !isTestSpace(accountId),
    ...data,
    timestamp: createdAt,
  };
  return {
    row: {
      id,
      account_id: accountId,
      type,
      payload: JSON.stringify(payload),
      created_at: createdAt,
      dispatched: 0,
    },
    event: { id, type, accountId, payload, createdAt },
  };
}
