/** The API's version: OpenAPI `info.version`, `leadcheck --version`, the webhook User-Agent. */
export const API_VERSION = "0.1.0";
