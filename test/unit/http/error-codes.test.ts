import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ERRORS, KindredError, type ErrorCode } from '../../../src/errors';
import { errorReply, jsonError } from '../../../src/http/error-reply';

const DOC = path.join(__dirname, '..', '..', '..', '..', 'docs', 'errors.md');

describe('error codes (docs/errors.md)', () => {
  it('lists every code with the status and type it implies, and nothing else', () => {
    const rows = new Map<string, { status: number; type: string }>();
    for (const m of fs.readFileSync(DOC, 'utf8').matchAll(/^\| <a id="(\w+)"><\/a>`\w+` \| (\d+) \| (\w+) \|/gm)) {
      rows.set(m[1], { status: Number(m[2]), type: m[3] });
    }
    assert.deepEqual([...rows.keys()].sort(), Object.keys(ERRORS).sort());
    for (const [code, kind] of Object.entries(ERRORS)) assert.deepEqual(rows.get(code), { status: kind.status, type: kind.type }, code);
  });

  it('answers a bug as 500 `internal`, never with its message', () => {
    const reply = errorReply(new Error('at /work/src/secret.ts:12'), jsonError);
    assert.equal(reply.status, 500);
    assert.deepEqual(reply.body, { message: 'Internal server error' });
    assert.equal(reply.headers?.['Kindred-Error-Code'], 'internal');
  });

  it('answers each code with the status it implies', () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      assert.equal(errorReply(new KindredError(code, 'x'), jsonError).status, ERRORS[code].status, code);
    }
  });
});
