// Wire shapes of the account export: its status and the download link parameters.
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";
export const ExportStatus = Type.Object({
  export_id: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("ready"), Type.Literal("failed")]),
  size_bytes: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
  expires_at: Timestamp,
});

export const ExportParams = Type.Object({ export_id: Type.String({ minLength: 1, maxLength: 100 }) });
