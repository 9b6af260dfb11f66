#!/usr/bin/env python3
"""Render the RFC 7991 XML that mmark writes into one HTML page, and check its cross references.

Debian 12 has no xml2rfc, and mmark's own -html output drops section numbers and the section
part of citations ("Section 6.3 of [RFC9112]"), so this renders the subset of the v3 vocabulary
that mmark emits: numbered sections and appendices, figures, tables, lists, xrefs to sections,
figures, tables and references (with sections of RFCs linked), BCP 14 keywords, references and
authors. Standard library only.

usage: xml2html.py IN.xml OUT.html     render (and check)
       xml2html.py --check IN.xml      check only: every xref target exists, every reference cited
Exit status 1 when a check fails.
"""
import datetime
import html
import sys
import xml.etree.ElementTree as ET

XI = "{http://www.w3.org/2001/XInclude}include"

CSS = """
body{max-width:52em;margin:2em auto;padding:0 1em;font:16px/1.45 serif;color:#222}
h1,h2,h3,h4{font-family:sans-serif;line-height:1.2}
h1.title{text-align:center;font-size:1.6em}
table.head{width:100%;font:0.9em sans-serif;margin-bottom:1.5em}
table.head td.r{text-align:right}
pre{background:#f6f6f6;padding:0.6em;overflow-x:auto;font-size:0.85em;line-height:1.25}
code{font-size:0.92em}
figure{margin:1em 0}
figcaption,caption{font:0.9em sans-serif;text-align:center;margin:0.3em 0}
table.t{border-collapse:collapse;margin:1em auto;font-size:0.9em}
table.t td,table.t th{border:1px solid #bbb;padding:0.2em 0.5em;vertical-align:top;text-align:left}
dl.refs dt{float:left;clear:left;width:13em;font-weight:bold}
dl.refs dd{margin-left:14em;margin-bottom:0.6em}
dt{font-weight:bold}
.bcp14{font-variant:small-caps;font-weight:bold}
nav.toc ul{list-style:none;padding-left:1.2em}
a.selfref{color:inherit;text-decoration:none}
"""


class Doc:
    def __init__(self, root):
        self.root = root
        self.anchors = {}      # anchor -> (kind, label, title)
        self.refs = {}         # anchor -> reference element
        self.cited = set()
        self.missing = []
        self.parent = {c: p for p in root.iter() for c in p}
        self.number()

    # -- numbering ---------------------------------------------------------------------------

    def number(self):
        middle = self.root.find("middle")
        back = self.root.find("back")
        if middle is not None:
            self.number_sections(middle, "", appendix=False)
        if back is not None:
            self.number_sections(back, "", appendix=True)
        nfig = ntab = 0
        for el in self.root.iter():
            if el.tag == "figure":
                nfig += 1
                self.anchors.setdefault(el.get("anchor") or "fig-%d" % nfig,
                                        ("figure", "Figure %d" % nfig, name_text(el)))
                el.set("_label", "Figure %d" % nfig)
            elif el.tag == "table":
                ntab += 1
                self.anchors.setdefault(el.get("anchor") or "tab-%d" % ntab,
                                        ("table", "Table %d" % ntab, name_text(el)))
                el.set("_label", "Table %d" % ntab)
            elif el.tag == "reference":
                self.refs[el.get("anchor")] = el
        for el in self.root.iter(XI):
            anchor = xi_anchor(el.get("href", ""))
            self.refs[anchor] = el

    def number_sections(self, parent, prefix, appendix):
        n = 0
        for sec in parent.findall("section"):
            if sec.get("numbered") == "false":
                label = ""
            else:
                n += 1
                if appendix and not prefix:
                    num = chr(ord("A") + n - 1)
                else:
                    num = "%s%d" % (prefix + "." if prefix else "", n)
                label = num
            sec.set("_num", label)
            kind = "Appendix" if appendix else "Section"
            if sec.get("anchor"):
                self.anchors[sec.get("anchor")] = ("section", (kind + " " + label) if label
                                                   else '"%s"' % name_text(sec), name_text(sec))
            self.number_sections(sec, label, appendix)

    # -- inline ------------------------------------------------------------------------------

    def inline(self, el):
        """Text and inline children of el, as HTML."""
        out = [esc(el.text)]
        for c in el:
            out.append(self.inline_el(c))
            out.append(esc(c.tail))
        return "".join(out)

    def inline_el(self, c):
        t = c.tag
        if t == "xref":
            return self.xref(c)
        if t == "bcp14":
            return '<span class="bcp14">%s</span>' % self.inline(c)
        if t in ("tt", "code"):
            return "<code>%s</code>" % self.inline(c)
        if t == "em":
            return "<em>%s</em>" % self.inline(c)
        if t in ("strong", "b"):
            return "<strong>%s</strong>" % self.inline(c)
        if t in ("sub", "sup"):
            return "<%s>%s</%s>" % (t, self.inline(c), t)
        if t == "eref":
            target = c.get("target", "")
            body = self.inline(c) or esc(target)
            return '<a href="%s">%s</a>' % (esc(target), body)
        if t == "br":
            return "<br>"
        if t == "iref":
            return ""
        return self.inline(c)

    def xref(self, c):
        target = c.get("target", "")
        text = self.inline(c)
        if target in self.refs:
            self.cited.add(target)
            cite = '<a href="#%s">[%s]</a>' % (esc(target), esc(target))
            sect = c.get("section")
            if not sect:
                return text + " " + cite if text else cite
            url = section_url(self.refs[target], sect)
            kind = "Appendix" if sect[:1].isalpha() else "Section"
            s = '<a href="%s">%s %s</a>' % (esc(url), kind, esc(sect)) if url \
                else "%s %s" % (kind, esc(sect))
            fmt = c.get("sectionFormat", "of")
            if fmt == "comma":
                return "%s, %s" % (cite, s)
            if fmt == "parens":
                return "%s (%s)" % (cite, s)
            if fmt == "bare":
                return s
            return "%s of %s" % (s, cite)
        if target in self.anchors:
            label = self.anchors[target][1]
            return '<a href="#%s">%s</a>' % (esc(target), text or esc(label))
        self.missing.append(target)
        return '<a href="#%s">%s</a>' % (esc(target), text or "[%s: missing]" % esc(target))

    # -- blocks ------------------------------------------------------------------------------

    def blocks(self, el):
        return "".join(self.block(c) for c in el if c.tag != "name")

    def block(self, c):
        t = c.tag
        if t == "t":
            return "<p>%s</p>\n" % self.inline(c)
        if t in ("ul", "ol"):
            items = "".join("<li>%s</li>\n" % self.flow(li) for li in c.findall("li"))
            return "<%s>\n%s</%s>\n" % (t, items, t)
        if t == "dl":
            out = ["<dl>\n"]
            for d in c:
                if d.tag == "dt":
                    out.append("<dt>%s</dt>\n" % self.inline(d))
                elif d.tag == "dd":
                    out.append("<dd>%s</dd>\n" % self.flow(d))
            out.append("</dl>\n")
            return "".join(out)
        if t == "figure":
            inner = self.blocks(c)
            return '<figure id="%s">%s<figcaption>%s%s</figcaption></figure>\n' % (
                esc(c.get("anchor", "")), inner, esc(c.get("_label")),
                (": " + self.inline(c.find("name"))) if c.find("name") is not None else "")
        if t in ("artwork", "sourcecode"):
            return "<pre>%s</pre>\n" % esc((c.text or "").rstrip("\n"))
        if t == "table":
            name = c.find("name")
            cap = esc(c.get("_label")) + ((": " + self.inline(name)) if name is not None else "")
            rows = []
            for part in c:
                if part.tag in ("thead", "tbody", "tfoot"):
                    for tr in part.findall("tr"):
                        cells = "".join("<%s>%s</%s>" % (td.tag, self.flow(td), td.tag)
                                        for td in tr if td.tag in ("td", "th"))
                        rows.append("<tr>%s</tr>\n" % cells)
            return '<table class="t" id="%s"><caption>%s</caption>\n%s</table>\n' % (
                esc(c.get("anchor", "")), cap, "".join(rows))
        if t == "blockquote":
            return "<blockquote>%s</blockquote>\n" % self.flow(c)
        if t == "aside":
            return "<aside>%s</aside>\n" % self.flow(c)
        if t == "section":
            return self.section(c)
        return self.flow(c)

    def flow(self, el):
        """Content that may be inline text or blocks (li, dd, td)."""
        if any(ch.tag in ("t", "ul", "ol", "dl", "figure", "artwork", "sourcecode", "table")
               for ch in el):
            lead = esc(el.text).strip()
            return (lead and "<p>%s</p>" % lead) + "".join(
                self.block(ch) + (esc(ch.tail).strip() and "<p>%s</p>" % esc(ch.tail))
                for ch in el)
        return self.inline(el)

    def section(self, sec):
        depth, p = 2, self.parent.get(sec)
        while p is not None and p.tag == "section" and depth < 4:
            depth, p = depth + 1, self.parent.get(p)
        num = sec.get("_num", "")
        anchor = sec.get("anchor", "")
        head = self.inline(sec.find("name")) if sec.find("name") is not None else ""
        numtxt = ""
        if num:
            numtxt = ('Appendix %s. ' % num) if (num[0].isalpha() and "." not in num) \
                else '%s. ' % num
        return '<section id="%s"><h%d><a class="selfref" href="#%s">%s</a>%s</h%d>\n%s</section>\n' % (
            esc(anchor), depth, esc(anchor), esc(numtxt), head, depth, self.blocks(sec))

    # -- references --------------------------------------------------------------------------

    def references(self, refs):
        name = name_text(refs)
        out = ['<section id="%s"><h2>%s</h2>\n<dl class="refs">\n' % (
            esc(name.lower().replace(" ", "-")), esc(name))]
        for r in refs:
            if r.tag == XI:
                a = xi_anchor(r.get("href", ""))
                out.append('<dt id="%s">[%s]</dt><dd>(included from <a href="%s">%s</a>)</dd>\n'
                           % (esc(a), esc(a), esc(r.get("href")), esc(r.get("href"))))
            elif r.tag == "reference":
                out.append(self.reference(r))
        out.append("</dl></section>\n")
        return "".join(out)

    def reference(self, r):
        a = r.get("anchor")
        front = r.find("front")
        authors = []
        for au in front.findall("author"):
            nm = au.get("fullname") or au.findtext("organization") or ""
            if au.get("role") == "editor":
                nm += ", Ed."
            if nm:
                authors.append(nm)
        title = front.findtext("title") or ""
        title = " ".join(title.split())
        parts = []
        if authors:
            parts.append(esc(", ".join(authors)))
        parts.append('"%s"' % esc(title))
        for si in r.findall("seriesInfo"):
            parts.append(esc("%s %s" % (si.get("name"), si.get("value"))))
        for rc in r.findall("refcontent"):
            parts.append(esc(" ".join((rc.text or "").split())))
        d = front.find("date")
        if d is not None and d.get("year"):
            parts.append(esc(" ".join(x for x in (d.get("month"), d.get("year")) if x)))
        tgt = r.get("target")
        if tgt:
            parts.append('&lt;<a href="%s">%s</a>&gt;' % (esc(tgt), esc(tgt)))
        return '<dt id="%s">[%s]</dt><dd>%s.</dd>\n' % (esc(a), esc(a), ", ".join(parts))

    # -- page --------------------------------------------------------------------------------

    def toc(self):
        out = ['<nav class="toc"><h2>Table of Contents</h2>\n']

        def walk(parent):
            secs = parent.findall("section")
            if not secs:
                return ""
            items = []
            for s in secs:
                num = s.get("_num", "")
                lab = num
                if num and num[0].isalpha() and "." not in num:
                    lab = "Appendix " + num
                items.append('<li><a href="#%s">%s%s</a>%s</li>\n' % (
                    esc(s.get("anchor", "")), esc(lab + ". " if lab else ""),
                    esc(name_text(s)), walk(s)))
            return "<ul>\n%s</ul>\n" % "".join(items)
        middle = self.root.find("middle")
        back = self.root.find("back")
        out.append(walk(middle) if middle is not None else "")
        if back is not None:
            refs = back.findall("references")
            if refs:
                out.append("<ul>%s</ul>" % "".join(
                    '<li><a href="#%s">%s</a></li>' % (
                        esc(name_text(r).lower().replace(" ", "-")), esc(name_text(r)))
                    for r in refs))
            out.append(walk(back))
        out.append('<ul><li><a href="#authors">Authors\' Addresses</a></li></ul></nav>\n')
        return "".join(out)

    def render(self):
        r = self.root
        front = r.find("front")
        title = front.find("title")
        docname = r.get("docName", "")
        for si in front.findall("seriesInfo"):
            if si.get("name") == "Internet-Draft":
                docname = si.get("value")
        status = {"exp": "Experimental", "info": "Informational", "std": "Standards Track",
                  "bcp": "Best Current Practice", "historic": "Historic"}.get(
                      r.get("category", ""), r.get("category", ""))
        d = front.find("date")
        if d is not None and d.get("year"):
            date = " ".join(x for x in (d.get("day"), d.get("month"), d.get("year")) if x)
        else:
            date = datetime.date.today().strftime("%-d %B %Y")
        authors = [a.get("fullname") or a.findtext("organization") or ""
                   for a in front.findall("author")]
        left = [front.findtext("workgroup") or "", "Internet-Draft",
                "Intended status: " + status if status else ""]
        right = authors + [date]
        head = "".join("<tr><td>%s</td><td class=r>%s</td></tr>" % (
            esc(left[i] if i < len(left) else ""), esc(right[i] if i < len(right) else ""))
            for i in range(max(len(left), len(right))))
        out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n',
               '<title>%s</title>\n<style>%s</style></head><body>\n' % (
                   esc(title.text), CSS),
               '<table class="head">%s</table>\n' % head,
               '<h1 class="title">%s<br><small>%s</small></h1>\n' % (
                   esc(title.text), esc(docname))]
        ab = front.find("abstract")
        if ab is not None:
            out.append('<section id="abstract"><h2>Abstract</h2>\n%s</section>\n'
                       % self.blocks(ab))
        for note in front.findall("note"):
            out.append("<section><h2>%s</h2>\n%s</section>\n" % (
                esc(name_text(note)), self.blocks(note)))
        out.append(self.toc())
        middle = r.find("middle")
        if middle is not None:
            out.extend(self.section(s) for s in middle.findall("section"))
        back = r.find("back")
        if back is not None:
            for refs in back.findall("references"):
                out.append(self.references(refs))
            out.extend(self.section(s) for s in back.findall("section"))
        out.append('<section id="authors"><h2>Authors\' Addresses</h2>\n')
        for a in front.findall("author"):
            out.append("<p>%s<br>%s</p>\n" % (esc(a.get("fullname", "")),
                                               esc(a.findtext("organization") or "")))
        out.append("</section>\n</body></html>\n")
        return "".join(out)

    def check(self):
        errors = []
        for m in sorted(set(self.missing)):
            errors.append("xref to missing anchor: " + m)
        for a in sorted(self.refs):
            if a not in self.cited:
                errors.append("reference never cited: " + a)
        return errors


def name_text(el):
    n = el.find("name")
    if n is None:
        return ""
    return " ".join("".join(n.itertext()).split())


def esc(s):
    return html.escape(s or "", quote=True)


def xi_anchor(href):
    base = href.rsplit("/", 1)[-1]
    if base.startswith("reference."):
        base = base[len("reference."):]
    if base.endswith(".xml"):
        base = base[:-4]
    if base.startswith("RFC."):
        base = "RFC" + base[4:].lstrip("0")
    return base


def section_url(ref, sect):
    if ref.tag != "reference":
        return ""
    for si in ref.findall("seriesInfo"):
        if si.get("name") == "RFC":
            kind = "appendix" if sect[:1].isalpha() else "section"
            return "https://www.rfc-editor.org/rfc/rfc%s#%s-%s" % (si.get("value"), kind, sect)
    return ""


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        doc = Doc(ET.parse(argv[2]).getroot())
        doc.render()
        errors = doc.check()
    elif len(argv) == 3:
        doc = Doc(ET.parse(argv[1]).getroot())
        page = doc.render()
        errors = doc.check()
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(page)
    else:
        sys.stderr.write(__doc__)
        return 2
    for e in errors:
        sys.stderr.write("xml2html: %s\n" % e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
