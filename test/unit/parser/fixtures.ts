/** HTML pages for the extraction tests. */

const WHALE_PARAGRAPHS = [
  'Humpback whales have returned to Monterey Bay in numbers not seen for decades, marine biologists said on Tuesday, crediting a ban on coastal gill nets and cleaner water.',
  'The survey counted more than four hundred humpback whales feeding on anchovy schools close to shore, where researchers from the Monterey Bay Aquarium tracked them by boat and by drone.',
  'Scientists say the recovery of the humpback whales shows how quickly a protected population can rebound once fishing gear and shipping lanes are managed with the animals in mind.',
  'Local fishermen, who opposed the gill net ban when it was introduced, now run whale watching tours that bring thousands of visitors to the harbor every summer.',
  'The researchers warned that warming water could still push the anchovy schools north, and the whales would follow the food wherever it goes along the Pacific coast.',
  'Ocean policy experts want the state to extend the protected zone and to slow container ships in the bay during the feeding season, when collisions with whales are most common.',
];

export const ARTICLE_HTML = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Whales return to Monterey Bay | Coastal Times</title>
<meta property="og:title" content="Whales return to Monterey Bay | Coastal Times">
<meta property="og:site_name" content="Coastal Times">
<meta name="author" content="Jane Doe">
<meta property="article:published_time" content="2024-03-05T10:00:00+01:00">
<meta name="keywords" content="humpback whales, Monterey Bay, ocean policy, cryptocurrency">
<meta property="og:image" content="/images/whales.jpg">
<meta property="og:video" content="https://cdn.coastal.example/video/whales.mp4">
<link rel="canonical" href="/news/2024/whales-return">
<script>document.title = 'hacked'; window.ranScript = true;</script>
</head>
<body>
<nav class="site-nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World navigation section</a></li><li><a href="/sports">Sports</a></li></ul></nav>
<header class="masthead"><a href="/">Coastal Times masthead</a></header>
<div class="cookie-consent"><p>We use cookies to improve your experience. Accept all cookies?</p></div>
<main>
<article class="story">
<h1>Whales return to Monterey Bay</h1>
<div class="share-bar"><a href="/share/fb">Share on Facebook</a> <a href="/share/tw">Share on Twitter</a></div>
<p>${WHALE_PARAGRAPHS[0]}</p>
<p>${WHALE_PARAGRAPHS[1]}</p>
<div class="ad-slot"><p>Advertisement</p></div>
<figure><img src="/images/inline-whale.jpg" width="800" height="500" alt="A whale"><figcaption>A humpback whale breaches near the harbor.</figcaption></figure>
<p>${WHALE_PARAGRAPHS[2]}</p>
<iframe width="560" height="315" src="https://www.youtube.com/embed/abc123XYZ" allowfullscreen></iframe>
<p>${WHALE_PARAGRAPHS[3]}</p>
<iframe src="//player.vimeo.com/video/76979871" width="640" height="360"></iframe>
<video controls poster="/images/poster.jpg"><source src="/media/breach.webm" type="video/webm"><source src="https://cdn.coastal.example/video/whales.mp4" type="video/mp4"></video>
<p>${WHALE_PARAGRAPHS[4]}</p>
<p>${WHALE_PARAGRAPHS[5]}</p>
<iframe src="https://ads.example.net/banner.html" width="300" height="250"></iframe>
</article>
<section id="comments" class="comments"><h3>3 Comments</h3><div class="comment"><p>First! Great read, thanks for sharing with the community here.</p></div></section>
</main>
<footer class="site-footer"><p>Copyright 2024 Coastal Times footer text. All rights reserved.</p><a href="/about">About us</a></footer>
</body></html>`;

export const WHALE_TEXT = WHALE_PARAGRAPHS;

const LOREM = Array.from(
  { length: 6 },
  (_, i) =>
    `<p>Paragraph ${i + 1} of the story explains in plain words what happened in the town council meeting, who spoke, what they wanted and why the vote on the new library was delayed again until the spring session.</p>`,
).join('\n');

export function page(head: string, body = `<article>${LOREM}</article>`): string {
  return `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

export { LOREM };
