// Session probe (issue 29, twelfth session): how many of a similar-to-text query's words miss a pool thread's stem
// memo once it is warm (5,000 20 Newsgroups training posts analysed), over the bench's query texts (held-out posts run
// on to 1,500 characters, as bench/throughput.ts makes them).
//   node bench/probes/stem-memo-misses.js
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { StemMemo } = require(path.join(ROOT, 'dist/src/text/stem-memo'));
const { analyze } = require(path.join(ROOT, 'dist/src/text'));
const { loadNewsgroups } = require(path.join(ROOT, 'dist/bench/support'));
let lookups = 0;
let misses = 0;
const get = StemMemo.prototype.get;
StemMemo.prototype.get = function (word) {
  lookups++;
  const stem = get.call(this, word);
  if (stem === undefined) misses++;
  return stem;
};
for (const post of loadNewsgroups('train').slice(0, 5000)) analyze(post.text, { hint: 'eng' });
lookups = misses = 0;
const posts = loadNewsgroups('test').map((p) => p.text.trim()).filter(Boolean);
const texts = [];
for (let i = 0; i < posts.length && texts.length < 3500; i++) {
  let text = posts[i];
  for (let j = i + 1; text.length < 1500 && j < posts.length; j++) text += `\n\n${posts[j]}`;
  if (text.length >= 1500) texts.push(text.slice(0, 1500));
}
for (const text of texts) analyze(text, { hint: 'eng' });
console.log(`${texts.length} query texts: ${(lookups / texts.length).toFixed(0)} stems looked up a query, ${(misses / texts.length).toFixed(1)} missed the memo`);
