/**
 * bench:answers — whether a speed change kept the answers: the same recommendation queries sent to two running
 * servers over the same data (a build before the change and one after, each started on its own copy of a kept key,
 * e.g. bench:throughput's 5k key), their bodies compared byte for byte. Queries: every 8th document's similar
 * documents, similar-to-text for the first 1,500 characters of every 50th document, every 10th user's content
 * recommendations (ids as bench:throughput names them: d0…, u0…).
 *
 *   BENCH_URL_A=http://127.0.0.1:18794 BENCH_URL_B=http://127.0.0.1:18795 BENCH_KEY=bench-throughput
 *   BENCH_DOCS=5000 BENCH_USERS=1000   npm run bench:answers
 *
 * Prints how many answers were the same and the first differences; exits 1 when any differs.
 */
const A = process.env.BENCH_URL_A;
const B = process.env.BENCH_URL_B;
const KEY = process.env.BENCH_KEY ?? 'bench-throughput';
const DOCS = Number(process.env.BENCH_DOCS ?? 5000);
const USERS = Number(process.env.BENCH_USERS ?? 1000);
const HEADERS = { 'Subscription-Key': KEY, 'Content-Type': 'application/json' };
const SHOWN_DIFFERENCES = 3;

async function bodyOf(base: string, path: string, body?: unknown): Promise<string> {
  const response = await fetch(`${base}${path}`, body === undefined ? { headers: HEADERS } : { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  return `${response.status} ${await response.text()}`;
}

async function main(): Promise<void> {
  if (!A || !B) throw new Error('set BENCH_URL_A and BENCH_URL_B to the two servers');
  let same = 0;
  const differences: string[] = [];
  const compare = async (path: string, body?: unknown): Promise<void> => {
    const [a, b] = await Promise.all([bodyOf(A, path, body), bodyOf(B, path, body)]);
    if (a === b) same++;
    else differences.push(`${path}${body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 60)}…`}\n  A: ${a.slice(0, 300)}\n  B: ${b.slice(0, 300)}`);
  };
  for (let i = 0; i < DOCS; i += 8) await compare(`/documents/d${i}/similar?number=10`);
  for (let i = 0; i < DOCS; i += 50) {
    const doc = JSON.parse((await bodyOf(A, `/documents/d${i}`)).replace(/^\d+ /, '')) as { text?: string };
    if (typeof doc.text === 'string') await compare('/documents/similar-to-text', { text: doc.text.slice(0, 1500), number: 10 });
  }
  for (let u = 0; u < USERS; u += 10) await compare(`/users/u${u}/recommendations?number=10`);
  const total = same + differences.length;
  console.log(`${total} answers: ${same} the same, ${differences.length} different`);
  for (const d of differences.slice(0, SHOWN_DIFFERENCES)) console.log(d);
  if (differences.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
