// A setting that cannot be used as given: the message names the variable and what it accepts.
export class ConfigError extends Error {
  override name = "ConfigError";
}
