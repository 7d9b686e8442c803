#!/usr/bin/perl
# mutate.pl - the test suite's strength, measured with mutants: each mutant of
# the list (t/mutate/mutants, format at its top) is a small deliberate bug in code
# users depend on, applied alone to a copy of the tree in build/mutate/src,
# built there and run against the tests that must catch it.  A test that fails
# kills it; a mutant every test passes survives.  The copy is refreshed from the
# working tree (tracked and new files) at each start and built incrementally: the
# mutated file is put back after each mutant.
#
#   perl t/mutate/mutate.pl [--list FILE] [--only REGEX] [--jobs N] [--check]
#
# --only runs the mutants whose names match; --check only looks for each
# mutant's text in the working tree (a second, no build, no test).
#
# `make mutate` runs it.  Exit status: 0 when every mutant is killed or written
# off as equivalent; 1 when one survives unexplained, is stale (its text is not
# in its file exactly once), does not build, or the unmutated copy fails a test
# (then nothing could be judged); 2 for bad usage or a malformed list.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use Getopt::Long qw(GetOptions);
use Time::HiRes qw(time);

my $src = abs_path(dirname(abs_path($0)) . '/../..');
my $list = "$src/t/mutate/mutants";
my ($only, $jobs, $check) = ('', 2, 0);
GetOptions('list=s' => \$list, 'only=s' => \$only, 'jobs=i' => \$jobs, 'check' => \$check)
	or usage_error("usage: $0 [--list FILE] [--only REGEX] [--jobs N] [--check]");
my $work = "$src/build/mutate";
my $copy = "$work/src";

# ---- the list ----
my @mutants;
{
	open(my $fh, '<', $list) or usage_error("cannot read '$list' ($!)");
	my $m;
	my %keys = map { $_ => 1 } qw(file find replace tests why equivalent);
	while (my $line = <$fh>) {
		chomp $line;
		next if $line =~ /^\s*(#|$)/;
		if ($line =~ /^\[([A-Za-z0-9._-]+)\]\s*$/) {
			$m = { name => $1, line => $. };
			push @mutants, $m;
			next;
		}
		$line =~ /^([a-z]+):\s*(.*?)\s*$/ && $keys{$1}
			or usage_error("not a line of a mutant '$line' ($list line $.)");
		$m or usage_error("a key before the first [name] '$1' ($list line $.)");
		defined $m->{$1} and usage_error("a key given twice '$1' ($list line $., [$m->{name}])");
		$m->{$1} = $2;
	}
	close $fh;
	my %seen;
	for my $m (@mutants) {
		$seen{$m->{name}}++ and usage_error("a mutant named twice '$m->{name}' ($list)");
		for my $k (qw(file find replace tests why)) {
			defined $m->{$k} && length $m->{$k}
				or usage_error("a mutant without '$k' '$m->{name}' ($list line $m->{line})");
		}
		$m->{find} ne $m->{replace}
			or usage_error("a mutant that changes nothing '$m->{name}' ($list line $m->{line})");
		$m->{tests} = [ split ' ', $m->{tests} ];
		for my $t (@{ $m->{tests} }) {
			$t =~ m{^t/[0-9]{4}-[A-Za-z0-9_-]+\.(c|t)$}
				or usage_error("not a test file '$t' (t/NNNN-name.c or .t, in [$m->{name}])");
			-f "$src/$t" or usage_error("no test file '$t' (in [$m->{name}])");
		}
	}
	@mutants = grep { $_->{name} =~ /$only/ } @mutants if length $only;
	@mutants or usage_error("no mutant '" . (length $only ? $only : '') . "' (in $list)");
}

sub usage_error { print STDERR "t32: $_[0]\n"; exit 2; }

# ---- the copy ----
# Tracked and new files of the working tree, as they are now; what was deleted
# there goes from the copy too.  Only a file whose bytes differ is written (and
# so rebuilt), which also puts back a mutant left by an interrupted run.
sub refresh_copy {
	make_path($copy);
	my @files = grep { -f "$src/$_" && !m{^build/} }
		split /\0/, qx(cd '$src' && git ls-files -z --cached --others --exclude-standard);
	$? == 0 or die "t32: cannot list the files of '$src' (git ls-files)\n";
	my %keep = map { $_ => 1 } @files;
	for my $f (split /\0/, qx(cd '$copy' && find . -path ./build -prune -o -type f -print0)) {
		$f =~ s{^\./}{};
		unlink "$copy/$f" unless $keep{$f};
	}
	for my $f (@files) {
		my $text = slurp("$src/$f");
		defined $text or die "t32: cannot read '$src/$f' ($!)\n";
		my $had = slurp("$copy/$f");
		next if defined $had && $had eq $text;
		make_path(dirname("$copy/$f"));
		spew("$copy/$f", $text);
		chmod((stat "$src/$f")[2] & 07777, "$copy/$f");
	}
}

sub slurp {
	open(my $fh, '<:raw', $_[0]) or return undef;
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

sub spew {
	my ($path, $text) = @_;
	open(my $fh, '>:raw', $path) or die "t32: cannot write '$path' ($!)\n";
	print $fh $text;
	close $fh or die "t32: cannot write '$path' ($!)\n";
	utime(undef, undef, $path);	# newer than any object built from it
}

# Occurrences of $find in $text.
sub count_of {
	my ($text, $find) = @_;
	my ($n, $at) = (0, 0);
	while ((my $i = index($text, $find, $at)) >= 0) {
		$n++;
		$at = $i + 1;
	}
	return $n;
}

# What a test file runs as: a C test is built to build/t/NAME.t.
sub test_path { my $t = shift; $t =~ s{^t/(.*)\.c$}{build/t/$1.t}; return $t; }

sub build {
	my @targets = @_;
	my $log = "$work/build.log";
	system("make -C '$copy' --no-print-directory -j$jobs T32_COMMIT=mutate all @targets >'$log' 2>&1");
	return $? == 0;
}

# Run one test file in the copy under a time limit; 1 when it passes.
sub run_test {
	my ($t, $limit, $log) = @_;
	local $ENV{T32} = "$copy/build/t32";
	local $ENV{T32_SRC} = $copy;
	local $ENV{T32_BUILD} = "$copy/build";
	my $path = test_path($t);
	system("cd '$copy' && timeout -k 5 $limit prove '$path' >'$log' 2>&1");
	return $? == 0;
}

# ---- --check: the anchors only ----
if ($check) {
	my $stale = 0;
	for my $m (@mutants) {
		my $text = slurp("$src/$m->{file}");
		my $n = defined $text ? count_of($text, $m->{find}) : 0;
		next if $n == 1;
		$stale++;
		print "STALE [$m->{name}] " .
			(defined $text ? "its text is in $m->{file} $n times" : "no file $m->{file}") . "\n";
	}
	printf "%d mutants, %d stale\n", scalar(@mutants), $stale;
	exit($stale ? 1 : 0);
}

# ---- the run ----
my $t0 = time;
refresh_copy();
my %want;
$want{$_}++ for map { @{ $_->{tests} } } @mutants;
my @tests = sort keys %want;
my @bins = map { test_path($_) } grep { /\.c$/ } @tests;
print "mutate: building the copy in $copy\n";
build(@bins) or die "t32: the unmutated copy does not build (see $work/build.log)\n";

# The unmutated tree must pass every test named, or nothing can be judged; a
# failing test is tried once more alone (the machine may have been busy).
my %took;
print "mutate: the unmutated copy against the " . scalar(@tests) . " test files named\n";
for my $t (@tests) {
	my $s = time;
	my $log = "$work/base-" . ($t =~ s{/}{_}gr) . ".log";
	my $pass = run_test($t, 600, $log) || run_test($t, 600, $log);
	$took{$t} = time - $s;
	$pass or die "t32: the unmutated copy fails '$t' (see $log): fix that first\n";
}

my @rows;
my $i = 0;
for my $m (@mutants) {
	$i++;
	my $s = time;
	my $path = "$copy/$m->{file}";
	my $orig = slurp($path);
	my $n = defined $orig ? count_of($orig, $m->{find}) : 0;
	my %r = (m => $m, by => '');
	if (!defined $orig || $n != 1) {
		$r{status} = 'STALE';
		$r{by} = defined $orig ? "its text is in $m->{file} $n times" : "no file $m->{file}";
	} else {
		my $text = $orig;
		substr($text, index($text, $m->{find}), length $m->{find}) = $m->{replace};
		spew($path, $text);
		if (!build(map { test_path($_) } grep { /\.c$/ } @{ $m->{tests} })) {
			$r{status} = 'UNBUILT';
			$r{by} = 'does not compile';
			system('cp', "$work/build.log", "$work/unbuilt-$m->{name}.log");
		} else {
			$r{status} = 'survived';
			# fastest first: the first failure decides
			for my $t (sort { $took{$a} <=> $took{$b} } @{ $m->{tests} }) {
				my $limit = int(30 + 5 * $took{$t});
				my $log = "$work/$m->{name}.log";
				next if run_test($t, $limit, $log);
				$r{status} = 'killed';
				$r{by} = $t;
				last;
			}
		}
		spew($path, $orig);
	}
	if ($r{status} eq 'survived' && defined $m->{equivalent}) {
		$r{status} = 'equivalent';
		$r{by} = $m->{equivalent};
	}
	$r{seconds} = time - $s;
	push @rows, \%r;
	printf "mutate: %3d/%d %-28s %-10s %5.1f s %s\n", $i, scalar(@mutants), $m->{name}, $r{status},
		$r{seconds}, $r{by};
}
# the copy's build is left as the tree is, for the next run
build(@bins);

# ---- the table ----
my %count;
$count{ $_->{status} }++ for @rows;
print "\n";
printf "%-28s %-26s %-10s %7s  %s\n", 'mutant', 'file', 'result', 'seconds', 'killed by / why it lives';
for my $r (@rows) {
	printf "%-28s %-26s %-10s %7.1f  %s\n", $r->{m}{name}, $r->{m}{file}, $r->{status},
		$r->{seconds}, $r->{by};
}
my $judged = @rows - ($count{equivalent} // 0);
my $killed = $count{killed} // 0;
printf "\nkilled %d of %d (%.1f%%; %d written off as equivalent of %d mutants): " .
	"%d survived, %d stale, %d unbuilt; %.0f s\n",
	$killed, $judged, $judged ? 100 * $killed / $judged : 0, $count{equivalent} // 0,
	scalar(@rows), $count{survived} // 0, $count{STALE} // 0, $count{UNBUILT} // 0, time - $t0;
for my $r (grep { $_->{status} eq 'killed' && defined $_->{m}{equivalent} } @rows) {
	print "note: [$r->{m}{name}] is written off as equivalent but was killed: " .
		"correct its entry\n";
}
exit(($count{survived} || $count{STALE} || $count{UNBUILT}) ? 1 : 0);
