#!/bin/sh
# 8002-report-browser.t - the report as a reader meets it: t32 study's index.html
# rendered by headless Chromium at 1400 and 900 px, every image loaded and
# nothing wider than the window.  Skips with its reason where Chromium or
# gnuplot is absent (CI need not install a browser); CHROMIUM names another.
. "$(dirname "$0")/lib-tap.sh"

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
	for b in chromium chromium-browser google-chrome; do
		command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
	done
fi
[ -n "$browser" ] || skip_all "no chromium here (apt-get install chromium to run this test)"
command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot is not installed (the report's figures need it)"
plan 11

run study -o "$TMP/rep" scatter min-vs-count combos
is 0 "$rc" "a small report is written"

# The page as it is, with a script at the end that checks it once everything has
# loaded and writes what it found into the page, which --dump-dom prints.
{
	cat "$TMP/rep/index.html"
	cat <<'JS'
<script>
window.addEventListener('load', function () {
  var w = window.innerWidth, imgs = document.images, broken = [], wide = [];
  for (var i = 0; i < imgs.length; i++)
    if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken.push(imgs[i].getAttribute('src'));
  var all = document.body.getElementsByTagName('*');
  for (var j = 0; j < all.length; j++) {
    var e = all[j], r = e.getBoundingClientRect(), p = e.parentElement, inside = false;
    /* past the window's right edge, or content spilling out of its box */
    var spills = e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 &&
      getComputedStyle(e).overflowX === 'visible';
    if (!(r.width > 0 && r.right > w + 1) && !spills) continue;
    /* a table in a scrolling box may be wider than the page: the box is not */
    for (; p && p !== document.body; p = p.parentElement)
      if (['auto', 'scroll', 'hidden'].indexOf(getComputedStyle(p).overflowX) >= 0) { inside = true; break; }
    if (!inside) wide.push(all[j].tagName.toLowerCase() + (all[j].id ? '#' + all[j].id : ''));
  }
  var out = document.createElement('pre');
  out.textContent = 'T32CHECK width=' + w + ' scroll=' + document.documentElement.scrollWidth +
    ' images=' + imgs.length + ' broken=' + broken.length + ' wide=' + wide.length +
    ' [' + broken.concat(wide).slice(0, 8).join(' ') + ']';
  document.body.appendChild(out);
});
</script>
JS
} >"$TMP/rep/.check.html" || bail "cannot write $TMP/rep/.check.html"

for w in 1400 900; do
	timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile-$w" --window-size=$w,2000 --virtual-time-budget=15000 \
		--dump-dom "file://$TMP/rep/.check.html" >"$TMP/dom-$w" 2>"$TMP/browser-$w.err"
	grep -o 'T32CHECK width=[0-9][^<]*' "$TMP/dom-$w" >"$TMP/check-$w"
	ok $? "chromium renders the page at $w px"
	[ -s "$TMP/check-$w" ] || { diag "$(tail -3 "$TMP/browser-$w.err")"; }
	like "$TMP/check-$w" " images=([2-9]|[1-9][0-9]+) " "at $w px: the figures are there"
	like "$TMP/check-$w" " broken=0 " "at $w px: every image loads"
	like "$TMP/check-$w" " wide=0 " "at $w px: nothing is wider than the window"
	sed -n 's/.*width=\([0-9]*\) scroll=\([0-9]*\).*/\1 \2/p' "$TMP/check-$w" >"$TMP/ws-$w"
	read -r width scroll <"$TMP/ws-$w"
	[ "${scroll:-99999}" -le "${width:-0}" ]; ok $? "at $w px: the page does not scroll sideways ($scroll of $width)"
done
# For people: screenshots where T32_SHOTS names a directory.
if [ -n "$T32_SHOTS" ] && mkdir -p "$T32_SHOTS"; then
	for w in 1400 900; do
		timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$TMP/profile-$w" --window-size=$w,2000 --virtual-time-budget=15000 \
			--screenshot="$T32_SHOTS/report-$w.png" "file://$TMP/rep/index.html" >/dev/null 2>&1
	done
fi
done_testing
