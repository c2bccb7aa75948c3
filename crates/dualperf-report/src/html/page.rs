//! The HTML document around the content: inline CSS (screen and print) and
//! a tiny inline script that records load errors and marks the page ready,
//! which the browser test reads back from the DOM. Nothing is fetched from
//! the network: the file views offline.

use maud::{html, PreEscaped, DOCTYPE};

/// Wraps `body` (HTML the sections made) into a complete, self-contained
/// HTML document: a maud template, so the title is escaped by the template.
pub(crate) fn document(title: &str, body: &str) -> String {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content={ "dualperf " (env!("CARGO_PKG_VERSION")) };
                title { (title) }
                script { (PreEscaped(ERROR_PROBE)) }
                style { (PreEscaped(CSS)) }
            }
            body {
                (PreEscaped(body))
                script { (PreEscaped(SORTER)) }
                script { (PreEscaped(READY_PROBE)) }
            }
        }
    };
    let mut out = page.into_string();
    out.push('\n');
    out
}

/// Sorts a `table.sortable` by the clicked column: by `data-sort` when
/// the cells have it (numbers), else by text; a second click reverses.
const SORTER: &str = "document.querySelectorAll('table.sortable').forEach(function(t){t.querySelectorAll('th').forEach(function(th,i){\
th.addEventListener('click',function(){var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\
var down=th.getAttribute('aria-sort')==='ascending';t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});\
th.setAttribute('aria-sort',down?'descending':'ascending');\
function key(r){var c=r.cells[i];if(!c)return '';var v=c.getAttribute('data-sort');return v!==null&&v!==''&&!isNaN(+v)?+v:c.textContent;}\
rows.sort(function(a,b){var x=key(a),y=key(b);var o=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));return down?-o:o;});\
rows.forEach(function(r){body.appendChild(r);});});});});";

/// Records every script or resource error into `data-errors` on `<html>`.
const ERROR_PROBE: &str = "window.addEventListener('error',function(e){var d=document.documentElement;\
d.setAttribute('data-errors',(d.getAttribute('data-errors')||'')+(e.message||('failed to load '+(e.target&&(e.target.src||e.target.href))))+'; ');},true);";

/// After load: counts charts, charts without drawn shapes or without size,
/// and pairs of chart labels (`<text>`) whose boxes overlap; writes on each
/// `<figure>` the most points any one of its drawn lines has
/// (`data-drawn-points`); counts tables wider than their container or the
/// page (`data-wide-tables`, their ids or classes in
/// `data-wide-table-names`); then sets `data-ready` on `<body>`.
const READY_PROBE: &str = "window.addEventListener('load',function(){var svgs=document.querySelectorAll('figure svg');\
var empty=0,flat=0,overlaps=0;svgs.forEach(function(s){if(s.querySelectorAll('polyline,path,line,circle,polygon,rect').length<3)empty++;\
var r=s.getBoundingClientRect();if(r.width<50||r.height<50)flat++;\
var boxes=Array.prototype.map.call(s.querySelectorAll('text'),function(t){return t.getBoundingClientRect();});\
for(var i=0;i<boxes.length;i++)for(var j=i+1;j<boxes.length;j++){var a=boxes[i],b=boxes[j];\
if(Math.min(a.right,b.right)-Math.max(a.left,b.left)>1&&Math.min(a.bottom,b.bottom)-Math.max(a.top,b.top)>1)overlaps++;}});\
document.querySelectorAll('figure').forEach(function(f){var most=0;f.querySelectorAll('polyline').forEach(function(p){\
var n=(p.getAttribute('points')||'').trim().split(/\\s+/).length;if(n>most)most=n;});f.setAttribute('data-drawn-points',most);});\
var wide=[],page=document.documentElement.clientWidth;document.querySelectorAll('table').forEach(function(t,i){var p=t.parentElement;if(t.scrollWidth>p.clientWidth+1||t.getBoundingClientRect().right>page+1)wide.push(t.id||t.className||('table '+i));});var b=document.body;b.setAttribute('data-wide-tables',wide.length);b.setAttribute('data-wide-table-names',wide.join(', '));b.setAttribute('data-charts',svgs.length);b.setAttribute('data-empty-charts',empty);\
b.setAttribute('data-flat-charts',flat);b.setAttribute('data-overlapping-labels',overlaps);b.setAttribute('data-ready','yes');});";

const CSS: &str = r#"
:root { --v4: #0072b2; --v6: #d55e00; --ink: #1d2329; --muted: #5b6670; --rule: #d9dee3; --bg-soft: #f5f7f9; --good: #1a7f37; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 48px; }
header.report { border-bottom: 3px solid var(--ink); padding-bottom: 10px; margin-bottom: 18px; }
header.report h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
header.report p { margin: 0; color: var(--muted); }
.arm { font-weight: 600; }
table.sortable th { cursor: pointer; } table.sortable th[aria-sort="ascending"]::after { content: " ▲"; } table.sortable th[aria-sort="descending"]::after { content: " ▼"; }
section { margin: 30px 0; }
h2 { font-size: 20px; margin: 0 0 10px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 0 0 6px; }
.answer { background: var(--bg-soft); border-left: 5px solid var(--ink); padding: 14px 20px; margin: 0 0 18px; }
.answer ul { margin: 6px 0 0; padding-left: 20px; } .answer li { margin: 4px 0; font-size: 16px; }
.answer .legend-line { color: var(--muted); font-size: 13px; margin-top: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--rule); vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; position: sticky; top: 0; }
.table-wrap { overflow-x: auto; }
td.point { white-space: nowrap; } td.arm-name { min-width: 9em; }
td.why { min-width: 16em; }
table.verdicts td.num, table.verdicts td.point, table.comparisons td.num, table.comparisons td.point { white-space: normal; } table.verdicts td.why, table.comparisons td.why { min-width: 12em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
tr.significant td.delta { font-weight: 600; }
td.worse { color: var(--bad); } td.better { color: var(--good); }
td.warn { color: #8a5a00; font-size: 12.5px; }
abbr, [title] { text-decoration-line: underline; text-decoration-style: dotted; text-decoration-color: #9aa4ad; text-underline-offset: 2px; cursor: help; }
th[title] { text-decoration: none; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 22px 26px; }
.figures.small { grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); }
figure { margin: 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; display: block; border: 1px solid var(--rule); border-radius: 4px; }
figcaption { font-size: 12.5px; color: var(--muted); margin-top: 6px; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 18px 26px; }
.facts th { width: 38%; background: none; position: static; color: var(--muted); font-weight: 500; }
dl.glossary { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; font-size: 13.5px; }
dl.glossary dt { font-weight: 600; } dl.glossary dd { margin: 0; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.92em; background: var(--bg-soft); padding: 0 3px; border-radius: 3px; }
details summary { cursor: pointer; color: var(--muted); margin: 6px 0; }
nav.toc { font-size: 13.5px; color: var(--muted); margin-bottom: 8px; } nav.toc a { color: inherit; margin-right: 12px; }
footer { color: var(--muted); font-size: 12.5px; border-top: 1px solid var(--rule); margin-top: 36px; padding-top: 8px; }
.note { color: var(--muted); font-size: 13px; }
@media print {
  @page { size: A4; margin: 12mm 10mm; }
  body { font-size: 9.5pt; }
  main { max-width: none; padding: 0; }
  nav.toc, details summary { display: none; }
  .table-wrap { overflow: visible; }
  table { font-size: 7.5pt; }
  th, td { padding: 2px 4px; }
  td.num, th.num { white-space: normal; }
  th { position: static; }
  .figures, .figures.small { display: grid; grid-template-columns: 1fr 1fr; gap: 5mm 6mm; }
  .facts { display: block; }
  figure svg { border: none; }
  figcaption { font-size: 7.5pt; }
  .answer { border-left-width: 3px; }
  a { color: inherit; text-decoration: none; }
}
"#;
