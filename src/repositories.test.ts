// The repository convention (issue 23): every public method of a repository (src/**/*.repo.ts)
// takes what it runs its statements on as its first parameter: an `Executor` (the database or the
// caller's transaction), or the `Db` a method opens its own transaction on. No repository keeps a
// database to fall back on, so a write can never silently run outside the caller's transaction.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SRC = dirname(fileURLToPath(import.meta.url));
const EXECUTOR_TYPES = /^(Executor|Db|Kysely<.*>|Transaction<.*>)$/;

function repositoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return repositoryFiles(path);
    return entry.name.endsWith(".repo.ts") ? [path] : [];
  });
}

/** "file:line method(first parameter)" for each public method whose first parameter is not one. */
function misplacedExecutors(file: string, text = readFileSync(file, "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isMethodDeclaration(node) && ts.isClassDeclaration(node.parent)) {
      const isPrivate =
        ts.isPrivateIdentifier(node.name) ||
        (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private) !== 0;
      const first = node.parameters[0];
      const type = first?.type?.getText(source) ?? "";
      if (!isPrivate && !EXECUTOR_TYPES.test(type)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(
          `${relative(SRC, file)}:${line} ${node.name.getText(source)}(${first?.getText(source) ?? ""})`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("repositories take the executor first", () => {
  it("finds the repositories", () => {
    assert.ok(repositoryFiles(SRC).length >= 15);
  });

  it("every public repository method's first parameter is an Executor (or the Db it opens a transaction on)", () => {
    assert.deepEqual(
      repositoryFiles(SRC).flatMap((file) => misplacedExecutors(file)),
      [],
    );
  });

  it("names a method whose executor comes last, or that has none", () => {
    const text = `class R {
      find(id: string, executor: Executor) {}
      list(accountId: string) {}
      ok(executor: Executor, id: string) {}
      opens(db: Db) {}
      private helper(id: string) {}
    }`;
    const found = misplacedExecutors(resolve(SRC, "x/x.repo.ts"), text);
    assert.deepEqual(found, ["x/x.repo.ts:2 find(id: string)", "x/x.repo.ts:3 list(accountId: string)"]);
  });
});
