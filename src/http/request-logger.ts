// Fastify gives every request a child logger bound to its request id. Building one is not free:
// pino serialises the bindings and runs them through the redaction paths (the wildcard paths
// apply to every binding), about 4 µs a request in `bench:api`'s profile. When the logger's
// level is above `info`, as it is for the widget's routes and for deployments that log at
// `warn`, most requests never write a line, so the child is built on the first line that is
// written, and a line under the level costs one comparison (ADR 0082).
import type { FastifyBaseLogger } from "fastify";
import type pino from "pino";

type Level = "trace" | "debug" | "info" | "warn" | "error" | "fatal";
type Bindings = Record<string, unknown>;
type ChildOptions = { level?: string; serializers?: Record<string, unknown> };

class LazyChildLogger {
  #child: pino.Logger | undefined;
  readonly #parent: pino.Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;

  constructor(parent: pino.Logger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The real child, built once. */
  #real(): pino.Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options as pino.ChildLoggerOptions);
    return this.#child;
  }

  /** Whether a line at this level is written: the child's own level, else the parent's now. */
  #writes(level: Level): boolean {
    if (this.#child) return this.#child.isLevelEnabled(level);
    const values = this.#parent.levels.values;
    const threshold = this.#options.level ? values[this.#options.level] : this.#parent.levelVal;
    return (values[level] ?? 0) >= (threshold ?? 0);
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  isLevelEnabled(level: Level): boolean {
    return this.#writes(level);
  }

  child(bindings: Bindings, options?: ChildOptions): pino.Logger {
    return this.#real().child(bindings, options as pino.ChildLoggerOptions);
  }

  silent(): void {}

  trace(...args: unknown[]): void {
    if (this.#writes("trace")) (this.#real().trace as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]): void {
    if (this.#writes("debug")) (this.#real().debug as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]): void {
    if (this.#writes("info")) (this.#real().info as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]): void {
    if (this.#writes("warn")) (this.#real().warn as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]): void {
    if (this.#writes("error")) (this.#real().error as (...a: unknown[]) => void)(...args);
  }
  fatal(...args: unknown[]): void {
    if (this.#writes("fatal")) (this.#real().fatal as (...a: unknown[]) => void)(...args);
  }
}

/** Fastify's `childLoggerFactory`: the request's logger, built on its first written line. */
export function lazyRequestLogger(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger as pino.Logger, bindings, options) as unknown as FastifyBaseLogger;
}
