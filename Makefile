# t32 - time short x86-64 instruction sequences and explain the numbers.
#
#   make            build build/t32 (and the t32/t32 link to it)
#   make check      install what is missing (Debian), build, run the TAP tests with prove
#   make bench      measured figures beside their targets
#   make report     the coursework study, written to report/ (PROFILE=quick|full)
#   make install    PREFIX=/usr/local DESTDIR=
#
# CFLAGS and LDFLAGS are yours; the flags t32 needs live in T32_CFLAGS / T32_LIBS.

PREFIX   ?= /usr/local
BINDIR    = $(PREFIX)/bin
DATADIR   = $(PREFIX)/share/t32
CC       ?= cc
CFLAGS   ?= -O2 -g
PKGS      = gsl capstone
T32_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -I. \
	-DT32_DATADIR='"$(DATADIR)"' $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
T32_LIBS  = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
PROVE    ?= prove
B         = build

LIB_SRC  = $(filter-out t32/main.c,$(wildcard t32/*.c gen/*.c analysis/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/obj/%.o)
HEADERS  = $(wildcard t32/*.h gen/*.h analysis/*.h t/*.h)
TEST_SRC = $(filter-out t/tap.c t/modelkit.c,$(wildcard t/*.c))
TEST_LIB = $(B)/obj/t/tap.o $(B)/obj/t/modelkit.o
TEST_BIN = $(TEST_SRC:t/%.c=$(B)/t/%.t)

# Debian packages behind each requirement: what `make deps` installs.
DEB_PKGS = nasm libgsl-dev gnuplot-nox libcapstone-dev pkg-config perl gcc make

.PHONY: all check tests bench report install uninstall clean deps FORCE

all: $(B)/t32 t32/t32

$(B)/t32: $(B)/obj/t32/main.o $(B)/libt32.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(T32_LIBS)

t32/t32: $(B)/t32
	ln -sf ../$(B)/t32 $@

# The data directory is compiled in: a new PREFIX or DATADIR rebuilds what uses it.
$(B)/obj/t32/util.o: $(B)/datadir-stamp
$(B)/datadir-stamp: FORCE
	@mkdir -p $(B)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@
FORCE:

$(B)/libt32.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(T32_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/t/%.t: t/%.c $(TEST_LIB) $(B)/libt32.a
	@mkdir -p $(B)/t
	$(CC) $(T32_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_LIB) $(B)/libt32.a $(T32_LIBS)

tests: all $(TEST_BIN)

# The test command README gives.  A fresh machine gets its packages first, in a
# separate make so that pkg-config is asked again after they are installed.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory tests
	T32='$(abspath $(B)/t32)' T32_SRC='$(abspath .)' T32_BUILD='$(abspath $(B))' \
		$(PROVE) $(PROVE_FLAGS) $(sort $(TEST_BIN) $(wildcard t/*.t))

bench: all
	$(B)/t32 bench

# The quick start's main job: the coursework study, written to report/.
PROFILE ?= quick
report:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	$(B)/t32 study --profile $(PROFILE) -o report

# Install what is missing with apt-get when we can; otherwise name it in one line.
deps:
	@missing=''; \
	command -v nasm >/dev/null 2>&1 || missing="$$missing nasm"; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	pkg-config --exists gsl 2>/dev/null || missing="$$missing libgsl-dev"; \
	pkg-config --exists capstone 2>/dev/null || missing="$$missing libcapstone-dev"; \
	command -v gnuplot >/dev/null 2>&1 || missing="$$missing gnuplot-nox"; \
	command -v $(PROVE) >/dev/null 2>&1 || missing="$$missing perl"; \
	command -v $(CC) >/dev/null 2>&1 || missing="$$missing gcc"; \
	[ -z "$$missing" ] && exit 0; \
	sudo=''; [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo='sudo -n'; }; \
	if command -v apt-get >/dev/null 2>&1 && { [ "$$(id -u)" = 0 ] || [ -n "$$sudo" ]; }; then \
		echo "t32: installing$$missing" >&2; \
		$$sudo apt-get update -qq >&2 && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >&2 || \
		{ echo "t32: apt-get could not install:$$missing" >&2; exit 1; }; \
	else \
		echo "t32: missing packages, install them with: apt-get install$$missing" >&2; exit 1; \
	fi

install: all
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(DATADIR)' '$(DESTDIR)$(DATADIR)/plots'
	install -m 755 $(B)/t32 '$(DESTDIR)$(BINDIR)/t32'
	cp -R data/. '$(DESTDIR)$(DATADIR)/'
	install -m 644 plots/*.gp '$(DESTDIR)$(DATADIR)/plots/'

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/t32'
	rm -rf '$(DESTDIR)$(DATADIR)'

clean:
	rm -rf $(B) t32/t32
.SECONDARY: $(TEST_LIB)
