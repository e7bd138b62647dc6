"""HTML pieces of the workbench's pages: the layout, escaped text, tables, number cells
coloured by probability or value, and the strategy reports' markdown as HTML (the subset the
reports use: headings, paragraphs, lists, pipe tables, images, code)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from urllib.parse import urlencode

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d2b3a;color:#fff;padding:8px 16px;display:flex;gap:18px;align-items:center}
header a{color:#cfe3ff;text-decoration:none}header b{font-size:16px}
main{padding:14px 18px;max-width:1400px}
h1{font-size:20px;margin:6px 0 10px}h2{font-size:16px;margin:18px 0 6px}
table{border-collapse:collapse;background:#fff;margin:6px 0}
td,th{border:1px solid #d5d9de;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#eef1f4;font-weight:600}td.l,th.l{text-align:left}
td.l{white-space:normal;max-width:760px}td.priv{white-space:nowrap}
td.q{white-space:normal;max-width:480px}
.grid td.c{min-width:54px;font-variant-numeric:tabular-nums}
.grid th.mv{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;max-height:150px}
.note{color:#5a6672}.err{background:#fde8e8;border:1px solid #e0a0a0;padding:10px 14px}
.line a,.moves a,.moves button{display:inline-block;margin:2px 3px;padding:3px 8px;
 border:1px solid #9fb3c8;border-radius:4px;background:#fff;text-decoration:none;color:#123;
 cursor:pointer;font:13px monospace}
.line a:hover,.moves a:hover,.moves button:hover{background:#dcebfa}
.line a.never{opacity:.45}
.path span{font:13px monospace;background:#e8edf3;padding:2px 6px;border-radius:3px;
 margin-right:3px}
.bar{display:inline-block;height:10px;background:#4a7fb5;vertical-align:middle}
.box{background:#fff;border:1px solid #d5d9de;padding:10px 14px;margin:8px 0;display:inline-block;
 vertical-align:top;max-width:100%;box-sizing:border-box}
pre{background:#fff;border:1px solid #d5d9de;padding:8px;overflow-x:auto}
#position pre{white-space:pre-wrap;overflow-wrap:anywhere}
img{max-width:720px;display:block;margin:6px 0}
.seat{display:inline-block;margin:6px 12px 6px 0;vertical-align:top}
.card{display:inline-block;width:34px;height:48px;border:2px solid #345;border-radius:5px;
 margin:2px;text-align:center;line-height:48px;font:bold 18px monospace;background:#fffbea}
.card.hidden{color:#fff;
 background:repeating-linear-gradient(45deg,#5b7fa6,#5b7fa6 4px,#7a9cc2 4px,#7a9cc2 8px)}
.card.gone{background:#ddd;color:#999;border-style:dashed}
.house{display:inline-block;border:1px solid #aab;border-radius:6px;padding:4px 6px;margin:3px;
 background:#f3f6fa;text-align:center;font-size:12px}
textarea{width:100%;max-width:900px;font:13px monospace}
.thinking{background:#fff6d5;border:1px solid #e0c060;padding:6px 10px;max-width:900px}
"""

SCRIPT = """
function show(mode){document.querySelectorAll('td.c').forEach(function(td){
 var p=td.dataset.p, v=td.dataset.v; if(p===undefined)return;
 if(mode==='value'){td.textContent=v===''?'–':(+v).toFixed(3);
  var x=v===''?0:Math.max(-1,Math.min(1,(+v)/(+td.dataset.scale)));
  td.style.background=x>=0?'rgba(40,150,70,'+x.toFixed(3)+')':'rgba(200,50,50,'+(-x).toFixed(3)+')';}
 else{td.textContent=(+p).toFixed(3);td.style.background='rgba(40,110,200,'+(+p).toFixed(3)+')';}
 td.style.color=(mode==='value'?Math.abs(+v/(+td.dataset.scale)):+p)>0.6?'#fff':'#111';});
 document.querySelectorAll('.mode').forEach(function(b){b.disabled=(b.dataset.mode===mode);});}
document.addEventListener('DOMContentLoaded',function(){if(document.querySelector('td.c'))show('probability');
 var f=document.getElementById('filter');if(f){
  // each move's link tested once (720 placements on Agent Hunter standard): looking each
  // link up in the list of matches was quadratic
  var fits=function(b,q){return b.textContent.toLowerCase().indexOf(q)>=0;};
  var hits=function(){var q=f.value.toLowerCase(),all=document.querySelectorAll('.moves a.move');
   return Array.prototype.filter.call(all,function(b){return fits(b,q);});};
  f.addEventListener('input',function(){var q=f.value.toLowerCase();
   document.querySelectorAll('.moves a.move').forEach(function(b){
    b.style.display=fits(b,q)?'':'none';});
   document.getElementById('filtered').textContent='';});
  // Enter in the filter plays the one move it leaves; it submitted the typed-move form,
  // empty (an error page)
  f.addEventListener('keydown',function(e){if(e.key!=='Enter')return;e.preventDefault();
   var h=hits();if(h.length===1){h[0].click();return;}
   document.getElementById('filtered').textContent=h.length?h.length+' moves match: '+
    'Enter plays a move when the filter leaves one':'no move matches '+f.value;});}
 var t=document.getElementById('typed');if(t){
  document.addEventListener('submit',function(e){  // capture: before the form's listeners
   if(e.target===t.form&&!t.value.trim()){e.preventDefault();e.stopPropagation();
    document.getElementById('filtered').textContent='type a move, or click one';}},true);}});
"""


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def url(path: str, **query) -> str:
    return path + ("?" + urlencode({k: v for k, v in query.items() if v is not None})
                   if query else "")


def page(title: str, body: str, nav: Iterable[tuple[str, str]] = ()) -> str:
    links = "".join(f'<a href="{esc(href)}">{esc(text)}</a>' for text, href in nav)
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{esc(title)} · spycfr"
            f"</title><style>{STYLE}</style><script>{SCRIPT}</script></head><body><header>"
            f'<b>spycfr workbench</b><a href="/">runs</a>{links}</header><main>'
            f"<h1>{esc(title)}</h1>{body}</main></body></html>")


def table(headers: list[str], rows: Iterable[list], left: int = 1, cls: str = "") -> str:
    """A table of escaped cells; the first ``left`` columns aligned left."""
    head = "".join(f'<th class="{"l" if i < left else ""}">{esc(h)}</th>'
                   for i, h in enumerate(headers))
    head = f"<tr>{head}</tr>" if any(headers) else ""
    body = "".join("<tr>" + "".join(f'<td class="{"l" if i < left else ""}">{esc(c)}</td>'
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f'<table class="{cls}">{head}{body}</table>'


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def error_body(message: str) -> str:
    return f'<p class="err">{esc(message)}</p><p><a href="/">back to the runs</a></p>'


_INLINE = [(re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
           (re.compile(r"\*\*([^*]+)\*\*"), r"<b>\1</b>")]
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _inline(text: str, image: Callable[[str], str | None]) -> str:
    parts, last = [], 0
    for m in _IMAGE.finditer(text):
        parts.append(_fmt(text[last:m.start()]))
        src = image(m.group(2))
        parts.append(f'<img alt="{esc(m.group(1))}" src="{esc(src)}">' if src else
                     f"<i>[figure {esc(m.group(2))} not served]</i>")
        last = m.end()
    parts.append(_fmt(text[last:]))
    return "".join(parts)


def _fmt(text: str) -> str:
    out = _LINK.sub(r"\1", esc(text))  # links to files outside the page: their text only
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def markdown(text: str, image: Callable[[str], str | None]) -> str:
    """The report markdown as HTML; ``image(src)`` gives the URL of a figure (None: not
    served)."""
    out: list[str] = []
    para: list[str] = []
    lines, i = text.splitlines(), 0

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(para), image) + "</p>")
            para.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>" + esc("\n".join(lines[i + 1:j])) + "</pre>")
            i = j + 1
            continue
        if line.startswith("#"):
            flush()
            level = min(len(line) - len(line.lstrip("#")) + 1, 4)
            out.append(f"<h{level}>{_inline(line.lstrip('#').strip(), image)}</h{level}>")
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(set(c) <= set(":-") for c in cells):
                    rows.append(cells)
                i += 1
            out.append("<table>" + "".join(
                "<tr>" + "".join(f'<td class="l">{_inline(c, image)}</td>' for c in r)
                + "</tr>" for r in rows) + "</table>")
            continue
        elif line.lstrip().startswith(("- ", "* ")):
            flush()
            items = []
            while i < len(lines) and lines[i].lstrip().startswith(("- ", "* ")):
                items.append(f"<li>{_inline(lines[i].lstrip()[2:], image)}</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(out)
