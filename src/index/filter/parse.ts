import { Filter } from './ast';
import { FilterError } from './errors';

/*
 * Grammar (keywords case-insensitive, whitespace free):
 *   filter   := or
 *   or       := and ( "or" and )*
 *   and      := unary ( "and" unary )*
 *   unary    := "not" unary | primary
 *   primary  := "(" or ")"
 *             | "tagged" "with" STRING
 *             | "not" "tagged" "with" STRING          (same as not (tagged with …))
 *             | "published" ( "after" | "before" ) STRING
 *   STRING   := '…' or "…"; inside, a backslash escapes the next character and a doubled quote
 *               stands for one ('it''s' = it's).
 * Dates: RFC 3339 date-times (2024-05-01T10:00:00Z, offsets allowed) or plain dates (2024-05-01,
 * UTC). `published after D` is strictly later than D; for a plain date, later than the whole day
 * (>= the next midnight). `published before D` is strictly earlier than D (midnight for a plain date).
 * Documents without published_at match neither.
 */

type TokKind = 'word' | 'string' | 'lparen' | 'rparen' | 'end';
interface Tok { kind: TokKind; text: string; pos: number }

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(') { out.push({ kind: 'lparen', text: c, pos: i++ }); continue; }
    if (c === ')') { out.push({ kind: 'rparen', text: c, pos: i++ }); continue; }
    if (c === "'" || c === '"') {
      const start = i++;
      let text = '';
      let closed = false;
      while (i < src.length) {
        const d = src[i];
        if (d === '\\') {
          if (i + 1 >= src.length) throw new FilterError(`dangling backslash at position ${i}`, i);
          text += src[i + 1];
          i += 2;
        } else if (d === c) {
          if (src[i + 1] === c) { text += c; i += 2; continue; }
          i++;
          closed = true;
          break;
        } else {
          text += d;
          i++;
        }
      }
      if (!closed) throw new FilterError(`unterminated quoted string starting at position ${start}`, start);
      out.push({ kind: 'string', text, pos: start });
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      const start = i;
      while (i < src.length && /[A-Za-z_]/.test(src[i])) i++;
      out.push({ kind: 'word', text: src.slice(start, i).toLowerCase(), pos: start });
      continue;
    }
    throw new FilterError(`unexpected character '${c}' at position ${i}`, i);
  }
  out.push({ kind: 'end', text: '', pos: src.length });
  return out;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch millis the comparison uses, or undefined for a malformed date. */
function parseWhen(value: string, when: 'after' | 'before'): number | undefined {
  const d = DATE_ONLY.exec(value);
  if (d) {
    const t = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]));
    if (new Date(t).getUTCDate() !== Number(d[3]) || Number(d[2]) < 1 || Number(d[2]) > 12) return undefined;
    return when === 'after' ? t + 86_400_000 - 1 : t;
  }
  if (!DATE_TIME.test(value)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok {
    return this.toks[this.i];
  }

  private isWord(t: Tok, w: string): boolean {
    return t.kind === 'word' && t.text === w;
  }

  private describe(t: Tok): string {
    if (t.kind === 'end') return 'end of filter';
    if (t.kind === 'string') return `'${t.text}'`;
    return `'${t.text}'`;
  }

  private expectWord(w: string): void {
    const t = this.peek();
    if (!this.isWord(t, w)) throw new FilterError(`expected '${w}' at position ${t.pos}, found ${this.describe(t)}`, t.pos);
    this.i++;
  }

  private expectString(what: string): Tok {
    const t = this.peek();
    if (t.kind !== 'string') throw new FilterError(`expected a quoted ${what} at position ${t.pos}, found ${this.describe(t)}`, t.pos);
    this.i++;
    return t;
  }

  parse(): Filter {
    if (this.peek().kind === 'end') throw new FilterError('empty filter', 0);
    const f = this.or();
    const t = this.peek();
    if (t.kind !== 'end') throw new FilterError(`unexpected ${this.describe(t)} at position ${t.pos}`, t.pos);
    return f;
  }

  private or(): Filter {
    const items = [this.and()];
    while (this.isWord(this.peek(), 'or')) { this.i++; items.push(this.and()); }
    return items.length === 1 ? items[0] : { op: 'or', items };
  }

  private and(): Filter {
    const items = [this.unary()];
    while (this.isWord(this.peek(), 'and')) { this.i++; items.push(this.unary()); }
    return items.length === 1 ? items[0] : { op: 'and', items };
  }

  private unary(): Filter {
    if (this.isWord(this.peek(), 'not')) {
      this.i++;
      return { op: 'not', item: this.unary() };
    }
    return this.primary();
  }

  private primary(): Filter {
    const t = this.peek();
    if (t.kind === 'lparen') {
      this.i++;
      const f = this.or();
      const close = this.peek();
      if (close.kind !== 'rparen') throw new FilterError(`expected ')' at position ${close.pos} to close '(' at position ${t.pos}, found ${this.describe(close)}`, close.pos);
      this.i++;
      return f;
    }
    if (this.isWord(t, 'tagged')) {
      this.i++;
      this.expectWord('with');
      const s = this.expectString('tag id');
      return { op: 'tagged', tag: s.text };
    }
    if (this.isWord(t, 'published')) {
      this.i++;
      const w = this.peek();
      if (!this.isWord(w, 'after') && !this.isWord(w, 'before')) {
        throw new FilterError(`expected 'after' or 'before' at position ${w.pos}, found ${this.describe(w)}`, w.pos);
      }
      this.i++;
      const when = w.text as 'after' | 'before';
      const s = this.expectString('date');
      const at = parseWhen(s.text, when);
      if (at === undefined) throw new FilterError(`invalid date '${s.text}' at position ${s.pos}: use RFC 3339 (2024-05-01T10:00:00Z) or YYYY-MM-DD`, s.pos);
      return { op: 'published', when, at, source: s.text };
    }
    throw new FilterError(`expected 'tagged with', 'published after/before', 'not' or '(' at position ${t.pos}, found ${this.describe(t)}`, t.pos);
  }
}

/** Parses a filter string; throws FilterError naming the position and the problem. */
export function parseFilter(src: string): Filter {
  if (typeof src !== 'string') throw new FilterError('filter must be a string', 0);
  return new Parser(tokenize(src)).parse();
}
