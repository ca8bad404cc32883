/**
 * The dashboard's script, served as /dashboard/dashboard.js: plain browser JavaScript, no build step.
 * It polls /dashboard/data.json every 2 s with the admin token from session storage (asking for it
 * when missing or refused) and redraws the figures, tables and inline-SVG sparklines.
 */
export const DASHBOARD_JS = String.raw`(function () {
  'use strict';
  var TOKEN_KEY = 'kindred-admin-token';
  var POLL_MS = 2000;
  var SPARK_W = 240, SPARK_H = 44, SPARK_POINTS = 120;
  var token = sessionStorage.getItem(TOKEN_KEY) || '';
  var timer = null;
  var polls = 0;
  var $ = function (id) { return document.getElementById(id); };

  // ---- formatting ----
  function num(n, digits) {
    if (n === undefined || n === null || !isFinite(n)) return '–';
    return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 0 : digits, minimumFractionDigits: digits && n !== 0 && Math.abs(n) < 10 ? Math.min(digits, 1) : 0 });
  }
  function ms(v) {
    if (!v) return '–';
    if (v < 1) return num(v * 1000, 0) + ' µs';
    if (v < 1000) return num(v, v < 10 ? 1 : 0) + ' ms';
    return num(v / 1000, 2) + ' s';
  }
  function bytes(b) {
    if (!b) return '0 B';
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    var i = Math.min(units.length - 1, Math.floor(Math.log(b) / Math.log(1024)));
    return num(b / Math.pow(1024, i), i ? 1 : 0) + ' ' + units[i];
  }
  function rate(r) { return r ? num(r, r < 10 ? 2 : 1) + '/s' : '–'; }
  function span(seconds) {
    seconds = Math.abs(seconds);
    if (seconds < 60) return Math.round(seconds) + ' s';
    if (seconds < 3600) return Math.floor(seconds / 60) + ' min ' + Math.round(seconds % 60) + ' s';
    if (seconds < 86400) return Math.floor(seconds / 3600) + ' h ' + Math.round((seconds % 3600) / 60) + ' min';
    return Math.floor(seconds / 86400) + ' d ' + Math.round((seconds % 86400) / 3600) + ' h';
  }
  function ago(iso) { return iso ? span((Date.now() - Date.parse(iso)) / 1000) + ' ago' : '–'; }
  function until(iso) { if (!iso) return '–'; var s = (Date.parse(iso) - Date.now()) / 1000; return s <= 0 ? 'due now' : 'in ' + span(s); }
  function shortId(id) { return id.length > 12 ? id.slice(0, 12) + '…' : id; }

  // ---- DOM helpers (text only: every figure is set as textContent) ----
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'class') node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function td(text, cls, attrs) { var a = attrs || {}; a.text = text; if (cls) a['class'] = cls; return el('td', a); }
  function badge(text, tone) { return el('span', { 'class': 'badge ' + (tone || ''), text: text }); }
  function bar(fraction) {
    var b = el('div', { 'class': 'bar' }); var i = el('i');
    // Through the CSSOM: the page's CSP allows that, not style attributes in markup.
    i.style.width = Math.max(0, Math.min(100, fraction * 100)).toFixed(1) + '%';
    b.appendChild(i); return b;
  }
  function fill(tbodyId, rows, columns, emptyText) {
    var body = $(tbodyId);
    var frag = document.createDocumentFragment();
    if (!rows.length) frag.appendChild(el('tr', null, [el('td', { 'class': 'empty', colspan: String(columns), text: emptyText })]));
    rows.forEach(function (r) { frag.appendChild(r); });
    body.replaceChildren(frag);
  }

  // ---- sparklines: newest point at the right edge, SPARK_POINTS seconds across ----
  function spark(id, values, fixedMax) {
    var svg = $('spark-' + id);
    if (!svg) return;
    var max = fixedMax || 0;
    values.forEach(function (v) { if (v > max) max = v; });
    if (!(max > 0)) max = 1;
    var step = SPARK_W / (SPARK_POINTS - 1);
    var x0 = SPARK_W - (values.length - 1) * step;
    var pts = values.map(function (v, i) {
      var x = x0 + i * step, y = SPARK_H - 2 - (Math.max(0, v) / max) * (SPARK_H - 6);
      return x.toFixed(1) + ',' + y.toFixed(1);
    });
    var line = pts.length ? 'M' + pts.join(' L') : '';
    var area = pts.length ? line + ' L' + SPARK_W + ',' + SPARK_H + ' L' + x0.toFixed(1) + ',' + SPARK_H + ' Z' : '';
    svg.querySelector('path.line').setAttribute('d', line);
    svg.querySelector('path.area').setAttribute('d', area);
  }
  function tileValue(id, text, left, right, unit) {
    var t = $('tile-' + id);
    t.querySelector('[data-value]').textContent = text;
    if (unit !== undefined) t.querySelector('[data-unit]').textContent = unit;
    t.querySelector('[data-foot-left]').textContent = left || '';
    t.querySelector('[data-foot-right]').textContent = right || '';
  }
  function peak(values) { return values.reduce(function (a, b) { return b > a ? b : a; }, 0); }

  // ---- rendering ----
  function renderTiles(d) {
    var s = d.series, v = s.values, MiB = 1048576;
    var reqCounts = s.requests.counts, reqP99 = s.requests.p99Ms;
    tileValue('requests', num(d.requests.rate, 1), 'peak ' + num(peak(reqCounts)) + '/s', '60 s avg');
    spark('requests', reqCounts);
    var p99 = d.requests.p99Ms;
    tileValue('latency', !p99 ? '–' : p99 >= 1000 ? num(p99 / 1000, 2) : num(p99, p99 < 10 ? 2 : 1), 'p50 ' + ms(d.requests.p50Ms), '60 s', p99 >= 1000 ? 's' : 'ms');
    spark('latency', reqP99);
    tileValue('utilisation', num(d.pool.utilisation * 100, 0), d.pool.threads + ' threads', '10 s avg');
    spark('utilisation', (v.poolUtilisation || []).map(function (x) { return x * 100; }), 100);
    tileValue('queue', num(d.pool.queue), 'in flight ' + num(d.pool.inFlight), 'peak ' + num(peak(v.poolQueue || [])));
    spark('queue', v.poolQueue || []);
    tileValue('rss', num(d.process.rssBytes / MiB, 0), 'peak ' + num(peak(v.rssBytes || []) / MiB, 0) + ' MiB', '2 min');
    spark('rss', (v.rssBytes || []).map(function (x) { return x / MiB; }));
    tileValue('heap', num(d.process.heapUsedBytes / MiB, 0), 'of ' + num(d.process.heapTotalBytes / MiB, 0) + ' MiB', 'ext ' + num(d.process.externalBytes / MiB, 0) + ' MiB');
    spark('heap', (v.heapUsedBytes || []).map(function (x) { return x / MiB; }));
    tileValue('lag', num(d.process.eventLoopLagP99Ms, 1), 'peak ' + num(peak(v.eventLoopLagP99Ms || []), 1) + ' ms', 'per second');
    spark('lag', v.eventLoopLagP99Ms || []);
  }

  function renderPool(d) {
    $('pool-threads').textContent = d.pool.threads;
    $('pool-utilisation').textContent = num(d.pool.utilisation * 100, 0) + ' %';
    $('pool-queue').textContent = num(d.pool.queue);
    $('pool-inflight').textContent = num(d.pool.inFlight);
    fill('threads', d.threads.map(function (t) {
      return el('tr', { 'data-thread': t.name }, [td(t.name, 'mono'), td(num(t.busy * 100, 0) + ' %', 'num'), el('td', null, [bar(t.busy)])]);
    }), 3, 'No thread reading yet');
    var worst = peak(d.pool.tasks.map(function (t) { return t.p99Ms; }));
    fill('tasks', d.pool.tasks.map(function (t) {
      return el('tr', { 'data-kind': t.kind }, [
        td(t.kind, 'mono'), td(num(t.total), 'num', { 'data-field': 'total' }), td(t.failed ? num(t.failed) : '–', 'num' + (t.failed ? ' err' : '')),
        td(num(t.count), 'num'), td(rate(t.rate), 'num'), td(ms(t.p50Ms), 'num'), td(ms(t.p99Ms), 'num'),
        el('td', null, [bar(worst ? t.p99Ms / worst : 0)]),
      ]);
    }), 8, 'No task has run yet');
  }

  function renderRequests(d) {
    var r = d.requests;
    $('requests-total').textContent = num(r.total);
    $('requests-rate').textContent = rate(r.rate);
    $('requests-p50').textContent = ms(r.p50Ms);
    $('requests-p99').textContent = ms(r.p99Ms);
    var busiest = peak(r.endpoints.map(function (e) { return e.count; }));
    fill('endpoints', r.endpoints.slice(0, 14).map(function (e) {
      return el('tr', { 'data-endpoint': e.version + ' ' + e.method + ' ' + e.route }, [
        el('td', null, [el('span', { 'class': 'method ' + e.method, text: e.method }), el('span', { 'class': 'mono', text: '/' + e.version + (e.route === 'unmatched' ? ' (no route)' : e.route) })]),
        td(num(e.count), 'num', { 'data-field': 'count' }), td(rate(e.rate), 'num'), td(e.errors ? num(e.errors) : '–', 'num' + (e.errors ? ' err' : '')),
        td(ms(e.p50Ms), 'num'), td(ms(e.p99Ms), 'num'), el('td', null, [bar(busiest ? e.count / busiest : 0)]),
      ]);
    }), 7, 'No API call in the last 60 s');
  }

  function hybridCell(m) {
    if (!m) return td('none trained', '', {});
    return el('td', { title: 'version ' + m.version }, [badge(m.loaded ? 'loaded' : 'stored', m.loaded ? 'good' : ''), ' ' + bytes(m.bytes) + ', ' + ago(m.savedAt)]);
  }

  function renderKeys(d) {
    $('keys-at').textContent = ago(d.keys.at);
    fill('tenants', d.keys.tenants.map(function (t) {
      var ix = t.index;
      var kind = !ix.loaded ? badge('not loaded') : el('span', null, [badge(ix.kind || 'building', ix.kind === 'lsa' ? 'info' : 'good'), ix.reranks ? ' ' : null, ix.reranks ? badge('rerank', 'warn') : null]);
      return el('tr', { 'data-tenant': t.tenant }, [
        td(shortId(t.tenant), 'mono', { title: t.tenant }), el('td', null, [t.name || '–', t.revoked ? ' ' : null, t.revoked ? badge('revoked', 'bad') : null]),
        td(num(t.documents), 'num', { 'data-field': 'documents' }), td(num(t.users), 'num', { 'data-field': 'users' }),
        td(num(t.preferences), 'num', { 'data-field': 'preferences' }), td(num(t.tags), 'num', { 'data-field': 'tags' }),
        el('td', null, [kind]), td(ix.loaded ? num(ix.size) : '–', 'num', { 'data-field': 'indexed' }), td(ix.loaded ? bytes(ix.memoryBytes) : '–', 'num'),
        hybridCell(t.hybridModel),
      ]);
    }), 10, 'No subscription key yet');
  }

  function renderJobs(d) {
    fill('schedules', d.jobs.schedules.map(function (s) {
      var last = s.lastRun;
      var lastCell = !last ? el('td', { text: 'never' }) : el('td', null, [badge(last.outcome, last.outcome === 'succeeded' ? 'good' : 'bad'), ' ' + ms((last.seconds || 0) * 1000) + ', ' + ago(last.finishedAt), last.error ? el('div', { 'class': 'err', text: last.error }) : null]);
      var now = s.running
        ? el('td', null, [badge('running', 'info'), ' ' + (s.running.progress !== undefined ? num(s.running.progress * 100) + ' %' : ago(s.running.startedAt)), s.running.progress !== undefined ? bar(s.running.progress) : null, s.running.note ? el('div', { 'class': 'mono', text: s.running.note }) : null])
        : el('td', null, [badge('idle')]);
      return el('tr', null, [
        td(s.name), td(s.tenant ? shortId(s.tenant) : 'every key', s.tenant ? 'mono' : '', s.tenant ? { title: s.tenant } : {}), td(s.expression, 'mono'),
        td(until(s.nextRun), '', s.nextRun ? { title: s.nextRun } : {}), lastCell, td(num(s.runs), 'num'), now,
      ]);
    }), 7, 'No schedule');
    var tones = { queued: 'info', running: 'warn', failed: 'bad', training: 'warn', trained: 'good' };
    fill('job-records', d.jobs.records.map(function (j) {
      return el('tr', null, [td(shortId(j.id), 'mono', { title: j.id }), td(j.kind), td(shortId(j.tenant), 'mono', { title: j.tenant }),
        el('td', null, [badge(j.status, tones[j.status])]), td(num(j.attempts), 'num'), td(ago(j.updated_at)), td(j.error || '', 'err')]);
    }), 7, 'No queued, running or failed job');
    fill('cluster-models', d.jobs.clusterModels.slice(-12).reverse().map(function (m) {
      return el('tr', null, [td(shortId(m.tenant), 'mono', { title: m.tenant }), td(String(m.id), 'num'), td(num(m.number_clusters), 'num'),
        el('td', null, [badge(m.status, tones[m.status])]), td(m.documents !== undefined ? num(m.documents) : '–', 'num'),
        td(ago(m.created_at)), td(m.trained_at ? ago(m.trained_at) : '–')]);
    }), 7, 'No cluster model');
  }

  function render(d) {
    $('process-meta').textContent = 'pid ' + d.process.pid + ' · node ' + d.process.node + ' · up ' + span(d.process.uptimeSeconds);
    renderTiles(d);
    renderPool(d);
    renderRequests(d);
    renderKeys(d);
    renderJobs(d);
    $('updated').textContent = 'updated ' + new Date(d.at).toLocaleTimeString('en-GB');
  }

  // ---- polling and the token ----
  function setStatus(kind, text) { var s = $('status'); s.className = 'pill ' + kind; s.textContent = text; }
  function showLogin(message) {
    clearTimeout(timer);
    $('login-error').textContent = message || '';
    $('login').hidden = false;
    $('sign-out').hidden = true;
    $('token').focus();
  }
  function later() { clearTimeout(timer); timer = setTimeout(poll, POLL_MS); }

  function poll() {
    var headers = token ? { Authorization: 'Bearer ' + token } : {};
    fetch('/dashboard/data.json', { headers: headers, cache: 'no-store' }).then(function (res) {
      if (res.status === 404) { setStatus('off', 'disabled'); showLogin('The dashboard is off: the server has no KINDRED_ADMIN_TOKEN.'); return; }
      if (res.status === 401) { setStatus('off', 'signed out'); showLogin(token ? 'The server refused that token.' : ''); return; }
      if (!res.ok) { setStatus('stale', 'HTTP ' + res.status); later(); return; }
      return res.json().then(function (data) {
        render(data);
        polls++;
        document.body.setAttribute('data-polls', String(polls));
        setStatus('live', 'live');
        $('sign-out').hidden = !token;
        later();
      });
    }).catch(function () { setStatus('stale', 'unreachable'); later(); });
  }

  $('login-form').addEventListener('submit', function (event) {
    event.preventDefault();
    token = $('token').value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    $('token').value = '';
    $('login').hidden = true;
    setStatus('', 'connecting');
    poll();
  });
  $('sign-out').addEventListener('click', function () {
    sessionStorage.removeItem(TOKEN_KEY);
    token = '';
    setStatus('off', 'signed out');
    showLogin('');
  });
  poll();
})();
`;
