# drafts/Makefile.frag: `make drafts` builds the Internet-Drafts (XML and HTML) into out/drafts.
# Hook into the top-level Makefile.am, after its `EXTRA_DIST =` line, with:
#   include $(srcdir)/drafts/Makefile.frag
# Needs mmark and python3 (see drafts/build.sh); not part of `all` or `check`.

DRAFTS_OUT = $(abs_top_builddir)/out/drafts
EXTRA_DIST += drafts/build.sh drafts/xml2html.py drafts/Makefile.frag drafts/eval.py drafts/eval-04.md drafts/eval-06.md \
	drafts/draft-sctpapps-http-over-sctp.md

.PHONY: drafts
drafts:
	$(SHELL) $(top_srcdir)/drafts/build.sh $(DRAFTS_OUT)
