/** The dashboard's stylesheet, served as /dashboard/dashboard.css. */
export const DASHBOARD_CSS = String.raw`
:root {
  --bg: #f4f5f7; --card: #ffffff; --ink: #1d2330; --muted: #667085; --line: #e4e7ec;
  --accent: #3559e0; --accent-soft: rgba(53, 89, 224, 0.12);
  --good: #1a7f4b; --warn: #b54708; --bad: #c0262d;
  --mono: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Roboto, sans-serif; }
header {
  display: flex; align-items: center; gap: 16px; padding: 12px 24px; background: #141a2a; color: #e8ecf6;
}
header h1 { font-size: 17px; font-weight: 650; margin: 0; letter-spacing: 0.2px; }
header h1 span { color: #8fa4ff; font-weight: 500; }
header .meta { color: #a9b3cc; font-size: 12.5px; }
header .spacer { flex: 1; }
.pill { display: inline-flex; align-items: center; gap: 6px; padding: 3px 10px; border-radius: 999px; font-size: 12px; background: #262e45; color: #cfd6e8; }
.pill::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: #8892aa; }
.pill.live::before { background: #35c46b; box-shadow: 0 0 0 3px rgba(53, 196, 107, 0.25); }
.pill.stale::before { background: #f0a030; }
.pill.off::before { background: #e5484d; }
button { font: inherit; cursor: pointer; border-radius: 6px; border: 1px solid var(--line); background: #fff; padding: 6px 12px; }
header button { background: transparent; border-color: #3a4460; color: #cfd6e8; padding: 3px 10px; font-size: 12px; }
main { padding: 20px 24px 32px; display: grid; gap: 16px; grid-template-columns: repeat(12, 1fr); max-width: 1600px; margin: 0 auto; }
.tiles { grid-column: 1 / -1; display: grid; gap: 12px; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px 8px; }
.tile .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.5px; }
.tile .value { font-size: 24px; font-weight: 650; margin: 2px 0 4px; font-variant-numeric: tabular-nums; }
.tile .value small { font-size: 13px; color: var(--muted); font-weight: 500; margin-left: 3px; }
.tile .foot { color: var(--muted); font-size: 11.5px; display: flex; justify-content: space-between; }
svg.spark { width: 100%; height: 44px; display: block; margin-top: 2px; }
svg.spark path.area { fill: var(--accent-soft); stroke: none; }
svg.spark path.line { fill: none; stroke: var(--accent); stroke-width: 1.6; vector-effect: non-scaling-stroke; }
svg.spark.warm path.area { fill: rgba(181, 71, 8, 0.12); }
svg.spark.warm path.line { stroke: var(--warn); }
svg.spark.green path.area { fill: rgba(26, 127, 75, 0.12); }
svg.spark.green path.line { stroke: var(--good); }
section.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
section.card h2 { font-size: 14.5px; margin: 0 0 10px; font-weight: 650; display: flex; align-items: baseline; gap: 10px; }
section.card h2 .sub { color: var(--muted); font-weight: 450; font-size: 12.5px; }
.half { grid-column: span 6; }
.full { grid-column: 1 / -1; }
@media (max-width: 1100px) { .half { grid-column: 1 / -1; } }
.facts { display: flex; flex-wrap: wrap; gap: 6px 22px; margin-bottom: 10px; color: var(--muted); font-size: 12.5px; }
.facts b { color: var(--ink); font-weight: 650; font-variant-numeric: tabular-nums; margin-left: 4px; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th { text-align: left; font-weight: 600; color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: 0.4px; border-bottom: 1px solid var(--line); padding: 6px 8px; white-space: nowrap; }
td { padding: 6px 8px; border-bottom: 1px solid #f0f2f5; vertical-align: middle; }
tr:last-child td { border-bottom: none; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.mono, .mono { font-family: var(--mono); font-size: 12.5px; }
td.empty { color: var(--muted); text-align: center; padding: 14px; font-style: italic; }
.method { display: inline-block; min-width: 52px; font-family: var(--mono); font-size: 11.5px; font-weight: 700; color: var(--accent); }
.method.POST { color: var(--good); } .method.PUT { color: var(--warn); } .method.DELETE { color: var(--bad); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11.5px; font-weight: 600; background: #eef1f6; color: var(--muted); }
.badge.good { background: #e3f4ea; color: var(--good); } .badge.warn { background: #fdf0e1; color: var(--warn); } .badge.bad { background: #fde7e8; color: var(--bad); } .badge.info { background: #e6ecfd; color: var(--accent); }
.bar { position: relative; height: 6px; border-radius: 3px; background: #eef1f6; min-width: 60px; overflow: hidden; }
.bar i { position: absolute; left: 0; top: 0; bottom: 0; background: var(--accent); border-radius: 3px; }
.err { color: var(--bad); }
h3 { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.5px; margin: 14px 0 4px; font-weight: 600; }
#login { position: fixed; inset: 0; background: rgba(20, 26, 42, 0.55); display: flex; align-items: center; justify-content: center; }
#login[hidden] { display: none; }
#login form { background: #fff; border-radius: 12px; padding: 24px 26px; width: 360px; box-shadow: 0 20px 50px rgba(0, 0, 0, 0.25); }
#login h2 { margin: 0 0 6px; font-size: 18px; }
#login p { margin: 0 0 14px; color: var(--muted); font-size: 13px; }
#login input { width: 100%; font: inherit; padding: 8px 10px; border: 1px solid #cdd3de; border-radius: 6px; margin-bottom: 12px; }
#login button { width: 100%; background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; padding: 8px; }
#login .err { min-height: 18px; font-size: 12.5px; margin: -4px 0 8px; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 0 0 24px; }
`;
