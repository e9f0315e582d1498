// Credentials at rest: AES-256-GCM with a key derived (HKDF-SHA256) from LEADCHECK_SECRET_KEY, a
// random 96-bit IV per write, and the connection id as additional data, so a ciphertext copied to
// another connection's row does not decrypt. Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export class CredentialsCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync("sha256", secret, "leadcheck", "connection-credentials v1", 32));
  }

  seal(connectionId: string, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(connectionId));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  /** Throws when the key is not the one that sealed it or the text was altered. */
  open(connectionId: string, sealed: string): string {
    const [version, iv, tag, body] = sealed.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unknown credentials format");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(connectionId));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
      "utf8",
    );
  }
}
