import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';

const ARTICLE = `<!doctype html><html><head>
<title>Rivers of the North | Daily Planet</title>
<meta property="og:title" content="Rivers of the North">
<meta property="og:site_name" content="Daily Planet">
<meta name="author" content="Ada Writer">
<meta property="article:published_time" content="2024-03-05T10:00:00Z">
<meta property="og:image" content="/images/river.jpg">
</head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article>
<h1>Rivers of the North</h1>
<p>The northern rivers carry meltwater from the glaciers to the sea every spring, and the salmon follow them upstream to spawn in the cold gravel beds.</p>
<p>Scientists measuring the rivers found that the glaciers are shrinking, so the meltwater arrives earlier each year and the salmon must adapt to warmer water.</p>
<p>Local fishermen say the rivers have changed within their lifetimes, and they worry about the salmon that their towns have depended on for centuries.</p>
<iframe src="https://www.youtube.com/embed/abc123"></iframe>
</article>
<footer>Copyright Daily Planet. All rights reserved.</footer>
</body></html>`;

/** A German news page: the lead sits outside the article container; credits, a date line and a "read also" link inside it. */
const NEWS = `<!doctype html><html lang="de"><head><meta charset="utf-8">
<title>Neue Brücke über die Elbe eröffnet - Elbkurier</title>
<meta property="og:site_name" content="Elbkurier">
</head><body>
<nav><a href="/">Start</a> <a href="/region">Region</a></nav>
<div class="kopf"><h1>Neue Brücke über die Elbe eröffnet</h1>
<div class="vorspann"><p>Nach vier Jahren Bauzeit ist die neue Brücke über die Elbe am Samstag für den Verkehr freigegeben worden, und schon am ersten Tag fuhren tausende Autos darüber.</p></div>
<div class="autorenzeile"><span>Autor</span> <a href="/autoren/klara-sommer">Klara Sommer</a></div></div>
<div class="artikel"><div class="text">
<p>Aktualisiert: 11.04.2020, 10:27</p>
<p>Die Brücke verbindet die beiden Stadtteile, die bisher nur über einen Umweg von zwanzig Kilometern erreichbar waren, und soll den Pendlern viel Zeit sparen.</p>
<p>Foto: Max Muster / Elbkurier</p>
<p>Der Bürgermeister sprach bei der Eröffnung von einem historischen Tag für die Stadt, weil die Brücke seit Jahrzehnten geplant und immer wieder verschoben worden war.</p>
<p>Lesen Sie auch: Der Streit um die Maut geht weiter</p>
<p>Die Baukosten lagen mit knapp achtzig Millionen Euro etwas über der ersten Schätzung, doch die Stadt hält die Investition für richtig und erwartet weniger Staus in der Innenstadt.</p>
<p>Radfahrer und Fußgänger haben auf der Brücke einen eigenen, breiten Weg, der abends beleuchtet ist und an beiden Ufern an das Radwegenetz angeschlossen wurde.</p>
</div></div>
<footer>Impressum · Datenschutz</footer>
</body></html>`;

/** A sentence repeated into a paragraph long enough to read as prose. */
const prose = (sentence: string, times: number): string => Array(times).fill(sentence).join(' ');

/**
 * A German recipe post (issue 30, third pass): an ad label, reader prompts and an author box with a long biography
 * inside the article's container; a long sentence that mentions the newsletter is the article's own.
 */
const BLOG = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Mandelplätzchen backen - Backstube</title></head><body>
<nav><a href="/">Start</a> <a href="/rezepte">Rezepte</a></nav>
<div id="main"><article class="post">
<h1>Mandelplätzchen backen</h1>
<div class="entry-content">
<p>${prose('Für die Mandelplätzchen werden Butter, Zucker und gemahlene Mandeln zu einem glatten Teig verarbeitet, der eine Stunde im Kühlschrank ruhen muss.', 4)}</p>
<p>Anzeige</p>
<p>${prose('Danach wird der Teig dünn ausgerollt, in kleine Sterne ausgestochen und auf einem mit Backpapier ausgelegten Blech bei mittlerer Hitze goldbraun gebacken.', 4)}</p>
<figure><img src="/sterne.jpg"><figcaption>Die fertigen Sterne auf dem Blech</figcaption></figure>
<p>${prose('Wer mag, bestreicht die abgekühlten Plätzchen mit geschmolzener Schokolade und streut gehackte Mandeln darüber, bevor die Schokolade fest wird.', 4)}</p>
<p>Wer den Newsletter der Backstube bestellt, bekommt jeden Monat ein neues Rezept für die Weihnachtszeit und für das ganze Jahr zugeschickt.</p>
<p>War der Artikel nützlich?</p>
<p>Kommentare geschlossen</p>
<div class="author-box"><h4>Über die Autorin</h4><p>${prose('Klara Sommer backt seit ihrer Kindheit, hat eine Konditorlehre gemacht und schreibt seit zehn Jahren über Kuchen, Torten und Plätzchen für Leserinnen in ganz Deutschland.', 2)}</p></div>
</div>
</article></div>
<footer>Impressum · Datenschutz</footer>
</body></html>`;
/** An English story with a call to action, a "was this helpful?" prompt and a next-story summary inside the article. */
const STORY = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>City opens its first night library</title></head><body>
<header><a href="/">The Courier</a></header>
<article><h1>City opens its first night library</h1>
<div class="story-body">
<p>${prose('The city opened its first night library on Friday, letting residents borrow books, use the reading rooms and study until two in the morning.', 4)}</p>
<p>${prose('Librarians said the late hours were meant for shift workers and students, who had asked for a quiet place to read after the day branches close.', 4)}</p>
<div class="cta-box"><p>Sign up for our newsletter today</p><p>Get the best of the city in your inbox.</p></div>
<p>${prose('The night library will run as a trial for six months, after which the council will decide whether to keep it open and whether to open a second one.', 4)}</p>
<p>Was this article helpful?</p>
<div class="next-read"><h3>A new bridge for cyclists</h3><p>${prose('The council approved a new bridge for cyclists and pedestrians across the river, to be built over the next two years at the old ferry landing.', 2)}</p></div>
</div></article>
<footer>© The Courier</footer>
</body></html>`;
/**
 * Issue 30, fourth pass: lines that stray outside the article's own container (the deepest element holding half
 * of the body) after it ends: a contact line, a short phrase straight in a <div>, a linked teaser; and a disclaimer
 * straight in a <div> (no <p>) named as furniture inside the article. One page in German, one in French.
 */
const strayPage = (lang: string, title: string, paragraphs: string[], disclaimer: string, contact: string, phrase: string, teaser: string): string =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title></head><body>
<nav><a href="/">Start</a></nav>
<article><h1>${title}</h1>
<div class="text"><div class="part">${paragraphs.slice(0, 3).map((p) => `<p>${p}</p>`).join('\n')}<div class="disclaimer">${disclaimer}</div></div>
<div class="extra"><p>${paragraphs[3]}</p></div>
<div class="info"><p>${contact}</p><div>${phrase}</div></div>
<ul><li><a href="/other">${teaser}</a></li></ul>
</div></article></body></html>`;
const STRAY: Record<string, string> = {
  '/stray/de': strayPage(
    'de',
    'Neuer Radweg am Kanal',
    [
      prose('Der neue Radweg am Kanal ist seit Montag offen, und schon am ersten Morgen fuhren hunderte Pendler auf dem breiten Asphalt in die Stadt.', 2),
      prose('Die Stadt hat den Weg in nur acht Monaten gebaut, er ist beleuchtet und an beiden Enden an das bestehende Netz der Radwege angeschlossen.', 2),
      prose('Anwohner hatten lange auf die Verbindung gewartet, weil der alte Pfad bei Regen schlammig war und im Winter kaum benutzt werden konnte.', 2),
      prose('Im Frühjahr sollen entlang des Weges noch Bänke und Bäume folgen, sagte die Bezirksbürgermeisterin bei der Eröffnung am Vormittag.', 2),
    ],
    'Dieser Text gibt die Meinung der Autorin wieder, nicht die der Redaktion',
    'Bezirksamt Mitte, Abteilung Verkehr',
    'Alle Termine im Bezirk',
    'Neuer Spielplatz am Hafen eröffnet',
  ),
  '/stray/fr': strayPage(
    'fr',
    'Une nouvelle piste cyclable le long du canal',
    [
      prose('La nouvelle piste cyclable le long du canal est ouverte depuis lundi, et dès le premier matin des centaines de cyclistes ont rejoint le centre.', 2),
      prose('La ville a construit la piste en huit mois seulement, elle est éclairée et reliée aux deux bouts au réseau des pistes existantes du quartier.', 2),
      prose('Les riverains attendaient cette liaison depuis longtemps, car l’ancien chemin devenait boueux sous la pluie et presque impraticable en hiver.', 2),
      prose('Des bancs et des arbres doivent encore suivre au printemps le long de la piste, a annoncé la maire du quartier lors de l’inauguration.', 2),
    ],
    'Ce texte reflète l’avis de son autrice et non celui de la rédaction',
    'Mairie du quartier, service de la voirie',
    'Tous les rendez-vous du quartier',
    'Un nouveau parc ouvre près du port',
  ),
};

/**
 * A news page whose standfirst sits beside the headline in the page's <header>, outside the article's container
 * (issue 30, fifth pass); the header also holds a picture credit and a linked teaser, which stay out.
 */
const leadPage = (lang: string, headline: string, lead: string, credit: string, teaser: string, paragraphs: string[]): string =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${headline}</title></head><body>
<nav><a href="/">Start</a></nav>
<header class="article-head"><h1>${headline}</h1><p class="standfirst">${lead}</p>
<figure><img src="/bild.jpg" alt=""><figcaption>${credit}</figcaption></figure>
<p class="more"><a href="/other">${teaser}</a></p></header>
<div class="article-body">${paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n')}</div>
<footer>Impressum</footer></body></html>`;

const LEAD: Record<string, string> = {
  '/lead/de': leadPage(
    'de',
    'Stadtbibliothek öffnet am Sonntag',
    'Ab März können Leserinnen und Leser auch am Sonntag Bücher ausleihen, zunächst für ein Jahr zur Probe.',
    'Der Lesesaal im Erdgeschoss nach dem Umbau im vergangenen Herbst, aufgenommen von der Stadt',
    'Weitere Nachrichten aus der Stadt und dem Umland finden Sie auf unserer Übersichtsseite hier',
    [
      prose('Die Stadtbibliothek hat am Dienstag angekündigt, dass sie ab März auch sonntags von elf bis siebzehn Uhr geöffnet sein wird.', 2),
      prose('Möglich wird das durch ein neues Gesetz des Landes, das Bibliotheken am Sonntag ohne eigenes Personal an der Ausleihe erlaubt.', 2),
      prose('Der Stadtrat will nach einem Jahr prüfen, wie viele Menschen das Angebot nutzen, und dann über eine dauerhafte Öffnung entscheiden.', 2),
    ],
  ),
  '/lead/es': leadPage(
    'es',
    'La biblioteca abre los domingos',
    'A partir de marzo los lectores podrán pedir libros prestados también los domingos, primero durante un año de prueba.',
    'La sala de lectura de la planta baja tras la reforma del otoño pasado, en una imagen del ayuntamiento',
    'Más noticias de la ciudad y de la comarca en nuestra página de portada, con todos los titulares',
    [
      prose('La biblioteca municipal anunció el martes que a partir de marzo abrirá también los domingos de once de la mañana a cinco de la tarde.', 2),
      prose('Lo permite una nueva ley regional que autoriza a las bibliotecas a abrir los domingos sin personal propio en el mostrador de préstamo.', 2),
      prose('El ayuntamiento revisará dentro de un año cuántas personas usan el servicio y decidirá entonces si la apertura será definitiva.', 2),
    ],
  ),
};

/** Metadata as pages really declare it (issue 30, third pass): each page in another language. */
const PROSE = {
  fr: '<p>La rivière a débordé pendant la nuit et les habitants du village ont passé la matinée à nettoyer les rues, les caves et les jardins recouverts de boue.</p>'.repeat(3),
  de: '<p>Alte Möbel bekommen mit etwas Farbe, neuen Griffen und viel Geduld ein zweites Leben, und das Wohnzimmer wirkt danach wärmer und persönlicher als vorher.</p>'.repeat(3),
  es: '<p>La biblioteca municipal abrirá sus puertas también los domingos a partir del próximo mes, según anunció el ayuntamiento después de una larga consulta vecinal.</p>'.repeat(3),
};
const METADATA_PAGES: Record<string, string> = {
  // application-name repeats the headline (so it is not the site's name); the only h1 is page furniture
  '/meta/fr': `<!doctype html><html lang="fr"><head><title>La rivière a débordé dans la nuit</title>
<meta property="og:title" content="La rivière a débordé dans la nuit"><meta name="application-name" content="La rivière a débordé dans la nuit">
<meta property="og:site_name" content="Le Petit Journal">
<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2022-01-10T22:06:08:684Z"}</script>
</head><body><div class="signaler"><h1>Signaler un contenu inapproprié</h1></div><article>${PROSE.fr}</article></body></html>`,
  // a date written with a two-digit year in an element named for it
  '/meta/de': `<!doctype html><html lang="de"><head><title>Vintage-Flair mit viel Grün</title></head><body>
<article><h1>Vintage-Flair mit viel Grün</h1><div class="uploaded-date">23.09.22</div>${PROSE.de}</article></body></html>`,
  // the canonical URL's last segment is a day-first date
  '/meta/es': `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title>
<link rel="canonical" href="https://ayuntamiento.example/noticias/29-10-2021"></head><body>
<article><h1>La biblioteca abre los domingos</h1>${PROSE.es}</article></body></html>`,
};

/** Headline and author rules of issue 30's metadata pass: one page per rule, in several languages. */
const HEADLINE_PAGES: Record<string, { html: string; title?: string; author?: string }> = {
  // the h1 opens with a kicker element; og:title carries a site name nothing declares
  '/meta4/kicker': {
    html: `<!doctype html><html lang="de"><head><meta property="og:title" content="Bohren, bis es heiß wird | Abendpost"></head><body><article>
<h1><span class="article-heading__kicker">Klimaschutz</span><span class="article-heading__title">Bohren, bis es heiß wird</span></h1>${PROSE.de}</article></body></html>`,
    title: 'Bohren, bis es heiß wird',
  },
  // a date glued in front of the headline in the h1
  '/meta4/glued-date': {
    html: `<!doctype html><html lang="fr"><head><meta property="og:title" content="Le maire inaugure la nouvelle passerelle - Le Courrier du Val"></head><body><article>
<h1><span class="date">3 février 2022</span> Le maire inaugure la nouvelle passerelle</h1>${PROSE.fr}</article></body></html>`,
    title: 'Le maire inaugure la nouvelle passerelle',
  },
  // "Site - Section - Headline": the h1 closes the breadcrumb
  '/meta4/breadcrumb': {
    html: `<!doctype html><html lang="de"><head><title>Bundesamt - Aktuelles - Neue Regeln für Drohnen: Was sich ab Januar ändert</title></head><body><article>
<h1>Neue Regeln für Drohnen: Was sich ab Januar ändert</h1>${PROSE.de}</article></body></html>`,
    title: 'Neue Regeln für Drohnen: Was sich ab Januar ändert',
  },
  // "Headline (Site)", the site known only by the host of the canonical URL
  '/meta4/bracketed-site': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos (El Heraldo Vecinal)</title>
<link rel="canonical" href="https://elheraldovecinal.example/noticias/biblioteca"></head><body><article>${PROSE.es}</article></body></html>`,
    title: 'La biblioteca abre los domingos',
  },
  // "Site - Section - Headline": both the section's h1 and the headline's are confirmed; the headline says more
  '/meta4/section-heading': {
    html: `<!doctype html><html lang="de"><head><title>Zoll online - Fachmeldungen - Verkündung des Tabaksteuergesetzes</title></head><body>
<h1>Fachmeldungen</h1><article><h1>Verkündung des Tabaksteuergesetzes</h1>${PROSE.de}</article></body></html>`,
    title: 'Verkündung des Tabaksteuergesetzes',
  },
  // Readability reads a one-word section name (dc.title); og:title has the headline
  '/meta4/one-word': {
    html: `<!doctype html><html lang="en"><head><meta name="DC.title" content="News"><meta property="og:title" content="Repair café opens on 31 January"></head><body>
<article>${'<p>The repair café in the town hall opens again on the last Friday of January, and volunteers will fix lamps, bicycles and clothes for free.</p>'.repeat(3)}</article></body></html>`,
    title: 'Repair café opens on 31 January',
  },
  // the h1 is built of spans with a spaced colon between them; og:title writes it without
  '/meta4/spaced-heading': {
    html: `<!doctype html><html lang="de"><head><meta property="og:title" content="Nutzerbasierte Abrechnung: Musik-Stars fordern neues Modell"></head><body><article>
<h1><span>Nutzerbasierte Abrechnung</span> : <span>Musik-Stars fordern neues Modell</span></h1>${PROSE.de}</article></body></html>`,
    title: 'Nutzerbasierte Abrechnung: Musik-Stars fordern neues Modell',
  },
  // Yoast's JSON-LD graph: the article's author is a reference to a Person node (the site's name would pass for a person's)
  '/meta4/jsonld-ref': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title><meta property="og:site_name" content="Wohnen Heute">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Article","headline":"Alte Möbel, neues Leben","author":{"@id":"https://moebel.example/#/person/1"}},{"@type":"Person","@id":"https://moebel.example/#/person/1","name":"Jana Berger"}]}</script>
</head><body><article><h1>Alte Möbel, neues Leben</h1>${PROSE.de}</article></body></html>`,
    author: 'Jana Berger',
  },
  // the JSON-LD author is an organisation; the page's byline names a person
  '/meta4/jsonld-organisation': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title>
<script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Organization","name":"Diario del Sur"}}</script>
</head><body><article><h1>La biblioteca abre los domingos</h1><span class="byline">Por María López</span>${PROSE.es}</article></body></html>`,
    author: 'María López',
  },
  // Twitter card data labelled "Verfasst von", a name of two letters
  '/meta4/twitter-data': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title>
<meta name="twitter:label1" content="Verfasst von"><meta name="twitter:data1" content="mh"></head><body><article><h1>Alte Möbel, neues Leben</h1>${PROSE.de}</article></body></html>`,
    author: 'mh',
  },
  // a short line "Von R. R. am …" in post metadata no byline selector names
  '/meta4/labelled-line': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>${PROSE.de}
<p class="postmetadata">Von R. R. am 3. Mai 2021</p></article></body></html>`,
    author: 'R. R.',
  },
  // a byline with the author's social-media handle
  '/meta4/handle': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title></head><body><article><h1>La biblioteca abre los domingos</h1>
<span class="author">Por Williams Perdomo @wperdomod</span>${PROSE.es}</article></body></html>`,
    author: 'Williams Perdomo',
  },
  // a personal site: the byline element holds a picture credit, the author is the person the site is named after
  '/meta4/picture-credit': {
    html: `<!doctype html><html lang="en"><head><title>Web analytics are leaking into meatspace</title><meta property="og:site_name" content="Matthew Davis">
<meta name="author" content="Matthew Davis"></head><body><article><h1>Web analytics are leaking into meatspace</h1><p class="byline">Photo by Jon Tyson on Unsplash</p>
${'<p>Supermarkets now track shoppers through their phones, their cards and their faces, and the data ends up with the same brokers that sell web analytics.</p>'.repeat(3)}</article></body></html>`,
    author: 'Matthew Davis',
  },
  // an institution declared as author, a person in the byline: the person
  '/meta4/institution': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title><meta name="author" content="Bayerische Landesanstalt für Wald und Forstwirtschaft">
</head><body><article><h1>Alte Möbel, neues Leben</h1><span class="author-name">Joachim Hamberger</span>${PROSE.de}</article></body></html>`,
    author: 'Joachim Hamberger',
  },
  // only an editorial team is named: it is the author (no person to prefer)
  '/meta4/staff': {
    html: `<!doctype html><html lang="en"><head><title>Web analytics are leaking into meatspace</title></head><body><article><h1>Web analytics are leaking into meatspace</h1>
<span class="byline">By Staff Writer</span>${'<p>Supermarkets now track shoppers through their phones, their cards and their faces, and the data ends up with the same brokers that sell web analytics.</p>'.repeat(3)}</article></body></html>`,
    author: 'Staff Writer',
  },
  // an editorial team's byline "Von Redaktion" and nothing else: the team is the author (no person, not the site)
  '/meta5/redaktion': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title><meta property="og:site_name" content="Wohnen Heute"></head><body><article>
<h1>Alte Möbel, neues Leben</h1><span class="td-post-author-name">Von Redaktion -</span>${PROSE.de}</article></body></html>`,
    author: 'Redaktion',
  },
  // JSON-LD names the author by a user name; the page's byline writes the same name out
  '/meta5/user-name': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title>
<script type="application/ld+json">{"@type":"Article","headline":"Alte Möbel, neues Leben","author":{"@type":"Person","name":"arianschlichenmayer"}}</script>
</head><body><article><h1>Alte Möbel, neues Leben</h1><span class="byline">von Arian Schlichenmayer</span>${PROSE.de}</article></body></html>`,
    author: 'Arian Schlichenmayer',
  },
  // a first name in the metadata, the full name in the byline
  '/meta5/first-name': {
    html: `<!doctype html><html lang="en"><head><title>Web analytics are leaking into meatspace</title><meta name="author" content="Todd"></head><body><article>
<h1>Web analytics are leaking into meatspace</h1><p class="byline">By Todd Bates</p>
${'<p>Supermarkets now track shoppers through their phones, their cards and their faces, and the data ends up with the same brokers that sell web analytics.</p>'.repeat(3)}</article></body></html>`,
    author: 'Todd Bates',
  },
  // a line of post data: the name after its label, before the next label glued to it
  '/meta5/post-data': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<div class="article-author-date"><span class="label">Datum:</span> 19.11.2021<br><span class="label">Autor:</span> Fritz Imhof<br><span class="label">Quelle:</span> Wohnen Heute<br></div>
${PROSE.de}</article></body></html>`,
    author: 'Fritz Imhof',
  },
  // a labelled line as French typography writes it, a space before the colon
  '/meta5/auteur': {
    html: `<!doctype html><html lang="fr"><head><title>La rivière a débordé dans la nuit</title><meta name="author" content="Radio du Nord (www.radionord.fr)"></head><body>
<article><h1>La rivière a débordé dans la nuit</h1>${PROSE.fr}<div class="longText"><p>Auteur : Claire Dubois </p><p>Édition : M. Martin</p></div></article></body></html>`,
    author: 'Claire Dubois',
  },
  // "Ein Artikel von" and the date after a bar
  '/meta5/ein-artikel-von': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<div class="metaInfo">Ein Artikel von <strong>Pamela Sladky</strong> | 27.01.2022 - 12:45</div>${PROSE.de}</article></body></html>`,
    author: 'Pamela Sladky',
  },
  // a byline that is only a weekday and a date names no one
  '/meta5/weekday': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<span class="byline">Donnerstag, 4. November 2021</span>${PROSE.de}</article></body></html>`,
    author: '',
  },
  // issue 30, author pass 3: a name signing the article off after its last paragraph, after a greeting and before a date
  '/meta6/signature': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
${PROSE.de}<p>Euer Benni<br>10. September 2017</p></article><footer><p>Impressum</p></footer></body></html>`,
    author: 'Benni',
  },
  // a signature in italics, right-aligned under the text
  '/meta6/signature-fr': {
    html: `<!doctype html><html lang="fr"><head><title>La rivière a débordé dans la nuit</title></head><body><div class="texte"><h1>La rivière a débordé dans la nuit</h1>
${PROSE.fr}<p align="right"><em>Denis Clerc</em></p></div></body></html>`,
    author: 'Denis Clerc',
  },
  // a labelled line whose name is followed by the author's role
  '/meta6/role': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
${PROSE.de}<p><strong>Autorin: Uta Staschewski, Projektleiterin der Stiftung in Tunesien.</strong></p></article></body></html>`,
    author: 'Uta Staschewski',
  },
  // "Text von …" with the illustrator credited on the same line
  '/meta6/text-von': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<p><em>Text von Christian Seiler &nbsp; &nbsp;Illustration von Markus Roost</em></p>${PROSE.de}</article></body></html>`,
    author: 'Christian Seiler',
  },
  // a date and a time before "von Name"
  '/meta6/date-time': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<h2>Wohnen <span>06.11.2023 13:30 von Olga </span></h2>${PROSE.de}</article></body></html>`,
    author: 'Olga',
  },
  // "| By" hidden for screen readers, the name in the next element
  '/meta6/screen-reader-by': {
    html: `<!doctype html><html lang="en"><head><title>Web analytics are leaking into meatspace</title></head><body><article><h1>Web analytics are leaking into meatspace</h1>
<div class="meta"><span class="screen-reader-text">| By </span><span>Cara Stiles</span> | <time>April 13, 2020</time></div>
${'<p>Supermarkets now track shoppers through their phones, their cards and their faces, and the data ends up with the same brokers that sell web analytics.</p>'.repeat(3)}</article></body></html>`,
    author: 'Cara Stiles',
  },
  // a name with two particles
  '/meta6/particles': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title></head><body><article><h1>La biblioteca abre los domingos</h1>
<div class="firma">Por&nbsp;<a href="/periodistas/jose-de-la-cruz">José de la Cruz</a></div>${PROSE.es}</article></body></html>`,
    author: 'José de la Cruz',
  },
  // a Chinese editor's label: a name in a script without case
  '/meta6/han': {
    html: `<!doctype html><html lang="zh"><head><title>城市图书馆夜间开放</title></head><body><article><h1>城市图书馆夜间开放</h1>
${'<p>这座城市的第一家夜间图书馆今天开放，读者可以在晚上借书和阅读，许多学生和上班族都很高兴。</p>'.repeat(6)}<div><span>责任编辑：焦鹏</span></div></article></body></html>`,
    author: '焦鹏',
  },
  // JSON-LD names one author, the byline lists her co-authors
  '/meta6/co-authors': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title>
<script type="application/ld+json">{"@type":"NewsArticle","headline":"La biblioteca abre los domingos","author":{"@type":"Person","name":"Isabel Caro"}}</script></head><body><article>
<h1>La biblioteca abre los domingos</h1><div class="autores">Isabel Caro, Rocío Latorre y José Miguel Wilson</div>${PROSE.es}</article></body></html>`,
    author: 'Isabel Caro, Rocío Latorre y José Miguel Wilson',
  },
  // a JSON-LD name escaped twice by its publisher
  '/meta6/escaped': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title>
<script type="application/ld+json">{"@type":"NewsArticle","headline":"La biblioteca abre los domingos","author":{"@type":"Person","name":"Mar&iacute;a L&oacute;pez"}}</script></head><body><article>
<h1>La biblioteca abre los domingos</h1>${PROSE.es}</article></body></html>`,
    author: 'María López',
  },
  // a personal page whose copyright line is followed by the address block: the name ends with its element
  '/meta6/copyright': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
${PROSE.de}<p>© 2019 Sven Schreivogel</p><div class="adresse"><strong>Adresse</strong><br>Vogelstraße 1</div></article></body></html>`,
    author: 'Sven Schreivogel',
  },
  // author pass 4: a blogger's one-word handle that is also the blog's name, declared by rel=author
  '/meta7/handle': {
    html: `<!doctype html><html lang="de"><head><title>Ferien im Zahlenland</title><meta property="og:site_name" content="Zahlenzauberin"></head><body><article><h1>Ferien im Zahlenland</h1>
<div class="entry-meta">von <span class="author vcard"><a rel="author" href="/author/zahlenzauberin/">zahlenzauberin</a></span></div>${PROSE.de}</article></body></html>`,
    author: 'zahlenzauberin',
  },
  // a user name in JSON-LD, the same name written out in a meta tag (as many letters as the user name)
  '/meta7/user-name': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title><meta name="author" content="Edilson La Rosa">
<script type="application/ld+json">{"@type":"NewsArticle","headline":"La biblioteca abre los domingos","author":{"@type":"Person","name":"edilson.la.rosa"}}</script></head><body><article>
<h1>La biblioteca abre los domingos</h1>${PROSE.es}</article></body></html>`,
    author: 'Edilson La Rosa',
  },
  // a byline element holding a question (a link to the authors' page) before the one holding the name
  '/meta7/question': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<div class="byline"><a href="/autoren">Wer schreibt für die Wohnstimme?</a></div><div class="byline">Georg Quaas</div>${PROSE.de}</article></body></html>`,
    author: 'Georg Quaas',
  },
  // a forum post's byline with "Uhr" after the time
  '/meta7/uhr': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<div class="author">Author: Bo2man am 29.12.2010, 13:36 Uhr</div>${PROSE.de}</article></body></html>`,
    author: 'Bo2man',
  },
  // a Spanish relative time after the name
  '/meta7/hace': {
    html: `<!doctype html><html lang="es"><head><title>La biblioteca abre los domingos</title></head><body><article><h1>La biblioteca abre los domingos</h1>
<div class="author">Jacobo Betancur Peláez | Publicado hace 3 horas</div>${PROSE.es}</article></body></html>`,
    author: 'Jacobo Betancur Peláez',
  },
  // a quotation's author named in an author class before the article's byline
  '/meta7/quote': {
    html: `<!doctype html><html lang="en"><head><title>Web analytics are leaking into meatspace</title></head><body><article><h1>Web analytics are leaking into meatspace</h1>
<p class="quote">Tracking is everywhere now. <span class="quote-author-name">Mark Goldberg, USA</span></p><div class="contributor-name">Written by Elisa Marvena</div>
${'<p>Supermarkets now track shoppers through their phones, their cards and their faces, and the data ends up with the same brokers that sell web analytics.</p>'.repeat(3)}</article></body></html>`,
    author: 'Elisa Marvena',
  },
  // a French "auteurs" class
  '/meta7/auteurs': {
    html: `<!doctype html><html lang="fr"><head><title>La rivière a débordé dans la nuit</title></head><body><div class="texte"><h1>La rivière a débordé dans la nuit</h1>
<p class="chapo">par <span class="auteurs">Didier Roy</span>, 21 juin 2018</p>${PROSE.fr}</div></body></html>`,
    author: 'Didier Roy',
  },
  // "Eine Kolumne von …" writes out the first name the meta tag gives
  '/meta7/kolumne': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title><meta name="author" content="Nils"></head><body><article><h1>Alte Möbel, neues Leben</h1>
<p><strong>Eine Kolumne von Nils Pickert</strong></p>${PROSE.de}</article></body></html>`,
    author: 'Nils Pickert',
  },
  // "Ein Interview von X mit Y": the interviewer wrote it
  '/meta7/interview': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<p><em>Ein Interview von <strong>Eugen Zentner</strong> mit <strong>Sonja Silberhorn</strong>.</em></p>${PROSE.de}</article></body></html>`,
    author: 'Eugen Zentner',
  },
  // the meta author is an association; the post line gives date, time and the person
  '/meta7/dated-time': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title><meta name="author" content="Deutsche Reitervereinigung"></head><body><article><h1>Alte Möbel, neues Leben</h1>
<small>04.02.2022 | 13:10 Uhr | Uta Helkenberg</small>${PROSE.de}</article></body></html>`,
    author: 'Uta Helkenberg',
  },
  // a signature followed by the article's footnotes
  '/meta7/signature-notes': {
    html: `<!doctype html><html lang="fr"><head><title>La rivière a débordé dans la nuit</title></head><body><div class="texte"><h1>La rivière a débordé dans la nuit</h1>
${PROSE.fr}<p align="right"><em>Denis Clerc</em></p><p>(1) Ces chiffres sont collectés par la préfecture.</p></div></body></html>`,
    author: 'Denis Clerc',
  },
  // soft hyphens inside a name
  '/meta7/soft-hyphens': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><article><h1>Alte Möbel, neues Leben</h1>
<p><strong>Von Mat&shy;thi&shy;as Lauerer</strong></p>${PROSE.de}</article></body></html>`,
    author: 'Matthias Lauerer',
  },
};
for (const [path, page] of Object.entries(HEADLINE_PAGES)) METADATA_PAGES[path] = page.html;
/** Pages for the headlines no declared title confirms (issue 30, title pass): each with the title it must get. */
const UNCONFIRMED_HEADLINES: Record<string, { html: string; title: string }> = {
  // og:title, JSON-LD and <title> carry one SEO title; the visible h1 says something else: the h1
  '/title5/seo-title-de': {
    html: `<!doctype html><html lang="de"><head><title>Firmenwagen: Leasen oder kaufen? | Autoratgeber</title>
<meta property="og:title" content="Firmenwagen: Leasen oder kaufen?"><meta property="og:site_name" content="Autoratgeber">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"Firmenwagen: Leasen oder kaufen?"}</script></head><body><article>
<h1>Was sich für Selbstständige beim Dienstwagen rechnet</h1>${PROSE.de}</article></body></html>`,
    title: 'Was sich für Selbstständige beim Dienstwagen rechnet',
  },
  // the same in English, with the JSON-LD headline HTML-escaped as templates write it ("&#39;")
  '/title5/seo-title-en': {
    html: `<!doctype html><html lang="en"><head><title>The library's new opening hours - Town Crier</title>
<meta property="og:title" content="The library's new opening hours"><meta property="og:site_name" content="Town Crier">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"The library&#39;s new opening hours"}</script></head><body><article>
<h1>Central library will open on Sundays from March</h1>${'<p>The central library will open on Sundays from March, the council said after a long consultation, and the trial will run for a whole year.</p>'.repeat(3)}</article></body></html>`,
    title: 'Central library will open on Sundays from March',
  },
  // og:title and JSON-LD disagree: no single SEO title, so the declared title (Readability's, JSON-LD first) stays
  '/title5/declared-disagree': {
    html: `<!doctype html><html lang="en"><head><title>Library hours change | Town Crier</title>
<meta property="og:title" content="Sunday opening for the library">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Library hours change"}</script></head><body><article>
<h1>Central library will open on Sundays from March</h1>${'<p>The central library will open on Sundays from March, the council said after a long consultation, and the trial will run for a whole year.</p>'.repeat(3)}</article></body></html>`,
    title: 'Library hours change',
  },
  // no h1, no og:title or JSON-LD, a template's "Page - Site" <title>: the first h2 names the article
  '/title5/h2-fr': {
    html: `<!doctype html><html lang="fr"><head><title>Formation - Pompiers du Val</title></head><body><div class="contenu">
<h2>Les plongeurs du bataillon passent leur brevet</h2>${PROSE.fr}</div></body></html>`,
    title: 'Les plongeurs du bataillon passent leur brevet',
  },
  '/title5/h2-de': {
    html: `<!doctype html><html lang="de"><head><title>Ausbildung | Feuerwehr Talheim</title></head><body><div class="inhalt">
<h2>Bootsdienst und Tauchausbildung im Winter</h2>${PROSE.de}</div></body></html>`,
    title: 'Bootsdienst und Tauchausbildung im Winter',
  },
  // ... but a <title> without a template's separator is the page's own title
  '/title5/h2-plain-title': {
    html: `<!doctype html><html lang="de"><head><title>Alte Möbel, neues Leben</title></head><body><div class="inhalt">
<h2>Farbe, Griffe und Geduld</h2>${PROSE.de}</div></body></html>`,
    title: 'Alte Möbel, neues Leben',
  },
};
for (const [path, page] of Object.entries(UNCONFIRMED_HEADLINES)) METADATA_PAGES[path] = page.html;


describe('article extraction service (/parser)', function () {
  this.timeout(120_000);
  let server: RunningServer;
  let pages: http.Server;
  let base: string;
  let api: Client;

  before(async () => {
    pages = http.createServer((req, res) => {
      if (req.url === '/article') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(ARTICLE);
      } else if (req.url === '/news') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(NEWS);
      } else if (req.url === '/blog' || req.url === '/story') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(req.url === '/blog' ? BLOG : STORY);
      } else if (req.url === '/resaved') {
        // A Chinese article re-saved as UTF-8 that kept its old GB2312 declaration.
        const html = `<!doctype html><html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>城市图书馆夜间开放</title></head><body><article><h1>城市图书馆夜间开放</h1>${'<p>这座城市的第一家夜间图书馆今天开放，读者可以在晚上借书和阅读，许多学生和上班族都很高兴。</p>'.repeat(6)}</article></body></html>`;
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(Buffer.from(html, 'utf8'));
      } else if (req.url && METADATA_PAGES[req.url]) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(METADATA_PAGES[req.url]);
      } else if (req.url && (STRAY[req.url] || LEAD[req.url])) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(STRAY[req.url] ?? LEAD[req.url]);
      } else if (req.url === '/missing') {
        res.writeHead(404, { 'Content-Type': 'text/html' });
        res.end('nope');
      } else if (req.url === '/json') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{}');
      } else {
        res.writeHead(302, { Location: '/article' });
        res.end();
      }
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    server = await startServer({ backend: 'embedded', keys: ['test-key', 'other-key'], env: { KINDRED_PARSER_ALLOW_PRIVATE: '1', KINDRED_PARSER_RATE: '50' } });
    api = new Client(`${server.url}/parser`);
  });
  after(async () => {
    await server?.stop();
    pages?.close();
  });

  it('reads a page re-saved as UTF-8 as UTF-8, whatever its <meta> still declares', async () => {
    const res = await api.get(`/?url=${encodeURIComponent(`${base}/resaved`)}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.title, '城市图书馆夜间开放');
    assert.match(res.body.body, /第一家夜间图书馆/);
  });

  it('extracts every field of an article', async () => {
    const res = await api.get(`/?url=${encodeURIComponent(`${base}/article`)}`);
    assert.equal(res.status, 200);
    const a = res.body;
    assert.equal(a.title, 'Rivers of the North');
    assert.equal(a.author, 'Ada Writer');
    assert.equal(a.published, '2024-03-05T10:00:00.000Z');
    assert.equal(a.image, `${base}/images/river.jpg`);
    assert.deepEqual(a.videos, ['https://www.youtube.com/embed/abc123']);
    assert.ok(a.keywords.some((k: string) => /salmon|rivers?|glaciers?|meltwater/.test(k)), a.keywords.join(', '));
    assert.ok(a.summary.length > 20);
    assert.ok(a.body.includes('meltwater from the glaciers'));
    assert.ok(!a.body.includes('All rights reserved'));
    assert.equal(a.body.split('\n').filter(Boolean).length >= 3, true);
    assert.ok(a.url.startsWith(base));
  });

  it('keeps the lead outside the article container and drops credits, date lines and "read also" links (issue 30)', async () => {
    const res = await api.get(`/?url=${encodeURIComponent(`${base}/news`)}`);
    assert.equal(res.status, 200);
    const a = res.body;
    assert.equal(a.title, 'Neue Brücke über die Elbe eröffnet');
    assert.equal(a.author, 'Klara Sommer');
    assert.match(a.body, /^Nach vier Jahren Bauzeit/);
    assert.match(a.body, /Radfahrer und Fußgänger/);
    assert.doesNotMatch(a.body, /Aktualisiert|Foto: Max Muster|Lesen Sie auch|Impressum/);
  });

  it('drops an author box, a next-story summary, ad labels and reader prompts inside the article, in German and English (issue 30)', async () => {
    const blog = (await api.get(`/?url=${encodeURIComponent(`${base}/blog`)}`)).body;
    assert.match(blog.body, /^Für die Mandelplätzchen/);
    assert.match(blog.body, /goldbraun gebacken/);
    assert.match(blog.body, /Wer den Newsletter der Backstube bestellt/);
    assert.doesNotMatch(blog.body, /Anzeige|War der Artikel nützlich|Kommentare geschlossen|Über die Autorin|Konditorlehre|Die fertigen Sterne/);
    const story = (await api.get(`/?url=${encodeURIComponent(`${base}/story`)}`)).body;
    assert.match(story.body, /^The city opened its first night library/);
    assert.match(story.body, /trial for six months/);
    assert.doesNotMatch(story.body, /Sign up|Was this article helpful|new bridge for cyclists|ferry landing/);
  });

  it('drops lines that stray outside the article after it ends, and a disclaimer in a <div> inside it, in German and French (issue 30, fourth pass)', async () => {
    const de = (await api.get(`/?url=${encodeURIComponent(`${base}/stray/de`)}`)).body;
    assert.match(de.body, /^Der neue Radweg am Kanal/);
    assert.match(de.body, /Bänke und Bäume folgen/);
    assert.doesNotMatch(de.body, /Meinung der Autorin|Bezirksamt Mitte|Alle Termine|Spielplatz am Hafen/);
    const fr = (await api.get(`/?url=${encodeURIComponent(`${base}/stray/fr`)}`)).body;
    assert.match(fr.body, /^La nouvelle piste cyclable/);
    assert.match(fr.body, /Des bancs et des arbres/);
    assert.doesNotMatch(fr.body, /avis de son autrice|Mairie du quartier|Tous les rendez-vous|nouveau parc/);
  });

  it('puts back the standfirst beside the headline outside the article, without the header’s caption or teaser, in German and Spanish (issue 30, fifth pass)', async () => {
    const de = (await api.get(`/?url=${encodeURIComponent(`${base}/lead/de`)}`)).body;
    assert.match(de.body, /^Ab März können Leserinnen und Leser auch am Sonntag Bücher ausleihen, zunächst für ein Jahr zur Probe\.\nDie Stadtbibliothek hat/);
    assert.match(de.body, /dauerhafte Öffnung entscheiden/);
    assert.doesNotMatch(de.body, /Lesesaal im Erdgeschoss|Weitere Nachrichten|Impressum/);
    const es = (await api.get(`/?url=${encodeURIComponent(`${base}/lead/es`)}`)).body;
    assert.match(es.body, /^A partir de marzo los lectores podrán pedir libros prestados también los domingos, primero durante un año de prueba\.\nLa biblioteca municipal anunció/);
    assert.match(es.body, /si la apertura será definitiva/);
    assert.doesNotMatch(es.body, /sala de lectura de la planta baja|Más noticias de la ciudad/);
  });

  it('reads title and date as pages declare them, in several languages (issue 30, third pass)', async () => {
    const read = async (path: string): Promise<{ title: string; published: string | null }> => {
      const res = await api.get(`/?url=${encodeURIComponent(`${base}${path}`)}`);
      assert.equal(res.status, 200, path);
      return res.body;
    };
    const fr = await read('/meta/fr');
    assert.equal(fr.title, 'La rivière a débordé dans la nuit');
    assert.equal(fr.published, '2022-01-10T00:00:00.000Z');
    assert.equal((await read('/meta/de')).published, '2022-09-23T00:00:00.000Z');
    const es = await read('/meta/es');
    assert.equal(es.title, 'La biblioteca abre los domingos');
    assert.equal(es.published, '2021-10-29T00:00:00.000Z');
  });

  it('finds the headline without kicker, date or site name, and the author a person or the page names (issue 30, metadata pass)', async () => {
    for (const [path, page] of Object.entries(HEADLINE_PAGES)) {
      const res = await api.get(`/?url=${encodeURIComponent(`${base}${path}`)}`);
      assert.equal(res.status, 200, path);
      if (page.title !== undefined) assert.equal(res.body.title, page.title, path);
      if (page.author !== undefined) assert.equal(res.body.author, page.author, path);
    }
  });

  it('takes the visible headline over one SEO title copied everywhere, and an h2 under a template title, in German, English and French (issue 30, title pass)', async () => {
    for (const [path, page] of Object.entries(UNCONFIRMED_HEADLINES)) {
      const res = await api.get(`/?url=${encodeURIComponent(`${base}${path}`)}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.body.title, page.title, path);
    }
  });

  it('follows redirects and answers the spec messages for failures', async () => {
    assert.equal((await api.get(`/?url=${encodeURIComponent(`${base}/elsewhere`)}`)).body.title, 'Rivers of the North');
    const cases: Array<[string, string]> = [
      ['/', 'url is missing, url is empty'],
      ['/?url=', 'url is missing, url is empty'],
      ['/?url=not%20a%20url', 'Unable to parse the URL provided'],
      [`/?url=${encodeURIComponent(`${base}/missing`)}`, 'URL responded with a 404 status code'],
      [`/?url=${encodeURIComponent(`${base}/json`)}`, 'Content-Type application/json is not supported'],
      [`/?url=${encodeURIComponent('http://127.0.0.1:1/closed')}`, 'HTTP response error'],
    ];
    for (const [path, message] of cases) {
      const res = await api.get(path);
      assert.equal(res.status, 400, path);
      assert.deepEqual(res.body, { message }, path);
    }
  });

  it('serves a repeated URL from the key\'s cache, and only that key\'s', async () => {
    const url = encodeURIComponent(`${base}/article?cached=1`);
    assert.equal((await api.get(`/?url=${url}`)).status, 200);
    pages.close();
    pages.closeAllConnections();
    assert.equal((await api.get(`/?url=${url}`)).body.title, 'Rivers of the North');
    const other = await api.withKey('other-key').get(`/?url=${url}`);
    assert.deepEqual(other.body, { message: 'HTTP response error' });
  });

  it('limits requests per key with 429 and rate-limit headers', async () => {
    const limited = await startServer({ backend: 'embedded', env: { KINDRED_PARSER_RATE: '1' } });
    try {
      const p = new Client(`${limited.url}/parser`);
      const first = await p.get('/?url=');
      assert.equal(first.headers.get('x-ratelimit-limit'), '1');
      const second = await p.get('/?url=');
      assert.equal(second.status, 429);
      assert.deepEqual(second.body, { message: 'API rate limit exceeded' });
      assert.equal(second.headers.get('x-ratelimit-remaining'), '0');
      assert.ok(Number(second.headers.get('retry-after')) >= 1);
    } finally {
      await limited.stop();
    }
  });

  it('refuses private addresses unless allowed', async () => {
    const strict = await startServer({ backend: 'embedded', env: { KINDRED_PARSER_RATE: '10' } });
    try {
      const p = new Client(`${strict.url}/parser`);
      for (const target of ['http://127.0.0.1:9/x', 'http://[::1]:9/x', 'http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data']) {
        const res = await p.get(`/?url=${encodeURIComponent(target)}`);
        assert.equal(res.status, 400, target);
        assert.match(res.body.message, /private or reserved|not allowed|refused/i, target);
      }
    } finally {
      await strict.stop();
    }
  });
});
