# t32 - time short x86-64 instruction sequences and explain the numbers.
#
#   make            build build/t32 (and the t32/t32 link to it)
#   make check      install what is missing (Debian), build, run the TAP tests with prove
#   make bench      measured figures beside their targets
#   make report     the coursework study, written to report/ (PROFILE=quick|full)
#   make doc        the lists doc/*.md take from the binary, written again
#   make install    PREFIX=/usr/local DESTDIR= (the binary, data, plots, t32(1), bash completion)
#   make check-sanitize  the tests again, built with ASan+UBSan into build/sanitize
#   make fuzz       each libFuzzer harness in fuzz/ for FUZZ_SECONDS (needs clang)
#   make mutate     the suite's strength: the mutants of t/mutate/mutants, each against its tests
#
# CFLAGS and LDFLAGS are yours; the flags t32 needs live in T32_CFLAGS / T32_LIBS.

PREFIX   ?= /usr/local
BINDIR    = $(PREFIX)/bin
DATADIR   = $(PREFIX)/share/t32
MANDIR    = $(PREFIX)/share/man/man1
COMPDIR   = $(PREFIX)/share/bash-completion/completions
CC       ?= cc
CFLAGS   ?= -O2 -g
PKGS      = gsl capstone
T32_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -I. \
	-DT32_DATADIR='"$(DATADIR)"' $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
T32_LIBS  = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
PROVE    ?= prove
B         = build

LIB_SRC  = $(filter-out t32/cmd/main.c,$(wildcard t32/*.c t32/*/*.c gen/*.c analysis/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/obj/%.o)
HEADERS  = $(wildcard t32/*.h t32/*/*.h gen/*.h analysis/*.h t/*.h)
TEST_SRC = $(filter-out t/tap.c t/modelkit.c,$(wildcard t/*.c))
TEST_LIB = $(B)/obj/t/tap.o $(B)/obj/t/modelkit.o
TEST_BIN = $(TEST_SRC:t/%.c=$(B)/t/%.t)

# Debian packages behind each requirement: what `make deps` installs.
DEB_PKGS = nasm libgsl-dev gnuplot-nox libcapstone-dev pkg-config perl gcc make
# What some tests and benches use when it is there (GNU parallel; a one-node Slurm
# cluster; cyclictest beside t32 wake in make bench):
# installed by `make deps` where it can, skipped with the reason where not.
DEB_TEST_PKGS = parallel slurm-wlm munge rt-tests

.PHONY: all check check-sanitize tests bench report doc install uninstall clean deps test-deps fuzz fuzz-deps \
	fuzz-build mutate FORCE

# t32/t32 links to the default build only: another build dir (B=build/sanitize) leaves it
all: $(B)/t32 $(B)/t32.1 $(if $(filter build,$(B)),t32/t32)

# The manual page, its commands, options, tables, blocks and exit codes from the binary.
$(B)/t32.1: doc/t32.1.sh $(B)/t32
	sh doc/t32.1.sh $(B)/t32 > $@.tmp && mv $@.tmp $@

# The lists doc/*.md take from the binary (exit codes, flags, sweep columns, tables,
# blocks), written again in place; t/0010-doc-generated.t fails while one is stale.
doc: $(B)/t32
	for f in doc/*.md; do sh doc/gen-md.sh $(B)/t32 $$f > $$f.tmp && mv $$f.tmp $$f || exit 1; done

$(B)/t32: $(B)/obj/t32/cmd/main.o $(B)/libt32.a $(B)/flags-stamp
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %-stamp,$^) $(T32_LIBS)

t32/t32: $(B)/t32
	ln -sf ../$(B)/t32 $@

# The data directory is compiled in: a new PREFIX or DATADIR rebuilds what uses it.
$(B)/obj/t32/util.o: $(B)/datadir-stamp
$(B)/datadir-stamp: FORCE
	@mkdir -p $(B)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@
# So is the commit the sources come from (provenance names it): a new commit
# rebuilds provenance.o only.
T32_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell \
	git rev-parse HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD -- t32 gen analysis 2>/dev/null && echo -dirty)
$(B)/obj/t32/io/provenance.o: t32/io/provenance.c $(HEADERS) $(B)/flags-stamp $(B)/commit-stamp
	@mkdir -p $(dir $@)
	$(CC) $(T32_CFLAGS) -DT32_COMMIT='"$(T32_COMMIT)"' $(CFLAGS) -c -o $@ $<
$(B)/commit-stamp: FORCE
	@mkdir -p $(B)
	@echo '$(T32_COMMIT)' | cmp -s - $@ || echo '$(T32_COMMIT)' > $@
# So are the compiler and its flags: a change of CC, CFLAGS or LDFLAGS rebuilds everything.
FLAGS_NOW = $(CC) | $(T32_CFLAGS) | $(CFLAGS) | $(LDFLAGS) | $(T32_LIBS)
$(B)/flags-stamp: FORCE
	@mkdir -p $(B)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
FORCE:

$(B)/libt32.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/obj/%.o: %.c $(HEADERS) $(B)/flags-stamp
	@mkdir -p $(dir $@)
	$(CC) $(T32_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/t/%.t: t/%.c $(TEST_LIB) $(B)/libt32.a $(B)/flags-stamp
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

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (leaks included) in its own build directory; any report fails the test it is in.
SAN_B     = build/sanitize
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
check-sanitize:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory B=$(SAN_B) CFLAGS='$(SAN_FLAGS)' LDFLAGS='$(SAN_FLAGS)' tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98 \
	T32='$(abspath $(SAN_B)/t32)' T32_SRC='$(abspath .)' T32_BUILD='$(abspath $(SAN_B))' \
		$(PROVE) $(PROVE_FLAGS) $(sort $(TEST_SRC:t/%.c=$(SAN_B)/t/%.t) $(wildcard t/*.t))

# libFuzzer harnesses, one per reader (fuzz/*.c), built with clang, ASan and UBSan
# into build/fuzz and run FUZZ_SECONDS each from the seeds in fuzz/seeds/NAME and
# the corpus they grow (build/fuzz/corpus/NAME).  A finding stops with its input
# saved as build/fuzz/NAME-crash-*; replay it with `build/fuzz/fuzz/NAME FILE`.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_B        = build/fuzz
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES    = $(patsubst fuzz/%.c,%,$(wildcard fuzz/*.c))
fuzz:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory fuzz-deps
	@$(MAKE) --no-print-directory B=$(FUZZ_B) CC=$(FUZZ_CC) \
		CFLAGS='-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)' LDFLAGS='$(FUZZ_SAN)' fuzz-build
	@for h in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_B)/corpus/$$h && \
		echo "fuzz: $$h for $(FUZZ_SECONDS) s" && \
		$(FUZZ_B)/fuzz/$$h -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_B)/$$h- $(FUZZ_B)/corpus/$$h fuzz/seeds/$$h || exit 1; \
	done
fuzz-build: $(FUZZ_NAMES:%=$(B)/fuzz/%)
$(B)/fuzz/%: fuzz/%.c fuzz/fuzzkit.h $(B)/libt32.a $(B)/flags-stamp
	@mkdir -p $(B)/fuzz
	$(CC) $(T32_CFLAGS) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(B)/libt32.a $(T32_LIBS)
# clang with libFuzzer: Debian's clang (and its runtime libraries where split off).
fuzz-deps:
	@mkdir -p build && \
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
		>build/fuzz-probe.c && \
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o build/fuzz-probe build/fuzz-probe.c \
		2>/dev/null && exit 0; \
	pkgs='clang libclang-rt-14-dev'; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "t32: installing $$pkgs" >&2; \
		apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends clang >&2 && \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			libclang-rt-14-dev >&2 2>/dev/null || true; } && \
		$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o build/fuzz-probe build/fuzz-probe.c; \
	else \
		echo "t32: make fuzz needs clang with libFuzzer: apt-get install $$pkgs" >&2; exit 1; \
	fi

bench: all
	$(B)/t32 bench $(if $(REFERENCE),--reference $(REFERENCE))

# Each mutant of t/mutate/mutants (a small bug in code users depend on) applied
# alone to a copy of the tree in build/mutate/src, built there, and run against
# the tests that must catch it; a killed/survived table at the end.  Not part of
# check: it takes minutes.  MUTATE_ONLY=REGEX runs the mutants so named.
mutate:
	@$(MAKE) --no-print-directory deps
	perl t/mutate/mutate.pl $(if $(MUTATE_ONLY),--only '$(MUTATE_ONLY)')

# The quick start's main job: the coursework study, written to report/.
PROFILE ?= quick
report:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	$(B)/t32 study --profile $(PROFILE) -o report

# The shell that installs the Debian packages in $$missing with apt-get, as root
# or with password-less sudo, saying "t32: $$installing", "t32: $$failed" where
# apt-get fails and "t32: $$unable" where it cannot run; exits 0 once they are
# installed (or none is missing), $$fail otherwise.
APT_INSTALL = [ -z "$$missing" ] && exit 0; \
	sudo=''; [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo='sudo -n'; }; \
	if command -v apt-get >/dev/null 2>&1 && { [ "$$(id -u)" = 0 ] || [ -n "$$sudo" ]; }; then \
		echo "t32: $$installing" >&2; \
		$$sudo apt-get update -qq >&2 && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >&2 && \
		exit 0; \
		echo "t32: $$failed" >&2; \
	else \
		echo "t32: $$unable" >&2; \
	fi; exit $$fail

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
	installing="installing$$missing"; failed="apt-get could not install:$$missing"; \
	unable="missing packages, install them with: apt-get install$$missing"; fail=1; \
	$(APT_INSTALL)
	@$(MAKE) --no-print-directory test-deps

# The tests' optional tools: installed as root (or with password-less sudo) when
# missing; otherwise the tests that need them skip and say why.  Never fails.
test-deps:
	@missing=''; \
	command -v parallel >/dev/null 2>&1 || missing="$$missing parallel"; \
	command -v slurmctld >/dev/null 2>&1 || missing="$$missing slurm-wlm"; \
	command -v munged >/dev/null 2>&1 || missing="$$missing munge"; \
	command -v cyclictest >/dev/null 2>&1 || missing="$$missing rt-tests"; \
	installing="installing, for the tests:$$missing"; \
	failed="could not install$$missing; the tests that need them will skip"; \
	unable="not installed:$$missing; the tests that need them will skip"; fail=0; \
	$(APT_INSTALL)

install: all
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(DATADIR)' '$(DESTDIR)$(DATADIR)/plots' \
		'$(DESTDIR)$(MANDIR)' '$(DESTDIR)$(COMPDIR)'
	install -m 755 $(B)/t32 '$(DESTDIR)$(BINDIR)/t32'
	cp -R data/. '$(DESTDIR)$(DATADIR)/'
	install -m 644 plots/*.gp '$(DESTDIR)$(DATADIR)/plots/'
	install -m 644 $(B)/t32.1 '$(DESTDIR)$(MANDIR)/t32.1'
	install -m 644 doc/t32.bash '$(DESTDIR)$(COMPDIR)/t32'

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/t32' '$(DESTDIR)$(MANDIR)/t32.1' '$(DESTDIR)$(COMPDIR)/t32'
	rm -rf '$(DESTDIR)$(DATADIR)'

clean:
	rm -rf $(B) t32/t32
.SECONDARY: $(TEST_LIB)
