/**
 * The dashboard's HTML. It holds no figures: the script (/dashboard/dashboard.js) fetches them from
 * /dashboard/data.json with the admin token, so the same page can be shown to a browser that has not
 * signed in yet (it shows the token form).
 */
const tile = (id: string, label: string, unit: string, tone = '') => `
    <div class="tile" id="tile-${id}">
      <div class="label">${label}</div>
      <div class="value"><span data-value>–</span><small data-unit>${unit}</small></div>
      <svg class="spark ${tone}" id="spark-${id}" viewBox="0 0 240 44" preserveAspectRatio="none" role="img" aria-label="${label}, last two minutes"><path class="area" d=""/><path class="line" d=""/></svg>
      <div class="foot"><span data-foot-left></span><span data-foot-right></span></div>
    </div>`;

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <link rel="icon" href="data:,">
  <title>Kindred · operations</title>
  <link rel="stylesheet" href="/dashboard/dashboard.css">
  <script src="/dashboard/dashboard.js" defer></script>
</head>
<body data-polls="0">
  <header>
    <h1>Kindred <span>operations</span></h1>
    <span class="meta" id="process-meta"></span>
    <span class="spacer"></span>
    <span class="meta" id="updated">waiting for data…</span>
    <span class="pill" id="status">connecting</span>
    <button type="button" id="sign-out" hidden>Sign out</button>
  </header>
  <main>
    <div class="tiles">${tile('requests', 'API requests', '/s')}${tile('latency', 'Request p99', 'ms', 'warm')}${tile('utilisation', 'Pool utilisation', '%', 'green')}${tile('queue', 'Pool queue', 'tasks', 'warm')}${tile('rss', 'Resident memory', 'MiB')}${tile('heap', 'JS heap used', 'MiB', 'green')}${tile('lag', 'Event-loop lag p99', 'ms', 'warm')}
    </div>
    <section class="card half" id="pool">
      <h2>Worker pool <span class="sub">tasks by kind · latency over the last 60 s, queue wait included</span></h2>
      <div class="facts">
        <span>Threads<b id="pool-threads">–</b></span><span>Utilisation (10 s)<b id="pool-utilisation">–</b></span>
        <span>Queue<b id="pool-queue">–</b></span><span>In flight<b id="pool-inflight">–</b></span>
      </div>
      <table><thead><tr><th>Thread</th><th class="num">Busy (10 s)</th><th></th></tr></thead>
      <tbody id="threads"></tbody></table>
      <table><thead><tr><th>Kind</th><th class="num">Total</th><th class="num">Failed</th><th class="num">Last 60 s</th><th class="num">Rate</th><th class="num">p50</th><th class="num">p99</th><th></th></tr></thead>
      <tbody id="tasks"></tbody></table>
    </section>
    <section class="card half" id="requests">
      <h2>Requests <span class="sub">per endpoint (route template) · last 60 s</span></h2>
      <div class="facts">
        <span>Since start<b id="requests-total">–</b></span><span>Rate<b id="requests-rate">–</b></span>
        <span>p50<b id="requests-p50">–</b></span><span>p99<b id="requests-p99">–</b></span>
      </div>
      <table><thead><tr><th>Endpoint</th><th class="num">Calls</th><th class="num">Rate</th><th class="num">5xx</th><th class="num">p50</th><th class="num">p99</th><th></th></tr></thead>
      <tbody id="endpoints"></tbody></table>
    </section>
    <section class="card full" id="keys">
      <h2>Keys <span class="sub">by tenant id (keys are never shown) · counts read from storage <span id="keys-at"></span></span></h2>
      <table><thead><tr><th>Tenant</th><th>Name</th><th class="num">Documents</th><th class="num">Users</th><th class="num">Preferences</th><th class="num">Tags</th><th>Content index</th><th class="num">Indexed</th><th class="num">Memory (est.)</th><th>Hybrid model</th></tr></thead>
      <tbody id="tenants"></tbody></table>
    </section>
    <section class="card full" id="jobs">
      <h2>Jobs <span class="sub">cron schedules · background jobs · cluster models</span></h2>
      <h3>Schedules</h3>
      <table><thead><tr><th>Schedule</th><th>Key</th><th>Cron</th><th>Next run</th><th>Last run</th><th class="num">Runs</th><th>Now</th></tr></thead>
      <tbody id="schedules"></tbody></table>
      <h3>Unfinished jobs</h3>
      <table><thead><tr><th>Job</th><th>Kind</th><th>Key</th><th>State</th><th class="num">Attempts</th><th>Updated</th><th>Error</th></tr></thead>
      <tbody id="job-records"></tbody></table>
      <h3>Cluster models</h3>
      <table><thead><tr><th>Key</th><th class="num">Model</th><th class="num">Clusters</th><th>Status</th><th class="num">Documents</th><th>Created</th><th>Trained</th></tr></thead>
      <tbody id="cluster-models"></tbody></table>
    </section>
  </main>
  <footer>Polls <span class="mono">/dashboard/data.json</span> every 2 s · the admin token stays in this tab's session storage</footer>
  <div id="login" hidden>
    <form id="login-form" autocomplete="off">
      <h2>Kindred operations</h2>
      <p>Enter the admin token (<span class="mono">KINDRED_ADMIN_TOKEN</span>). It is kept in this tab only and sent as a bearer token.</p>
      <input type="password" id="token" name="token" placeholder="Admin token" aria-label="Admin token" required>
      <div class="err" id="login-error"></div>
      <button type="submit">Open dashboard</button>
    </form>
  </div>
</body>
</html>
`;
