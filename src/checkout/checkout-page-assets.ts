/**
 * The inline style and script of the hosted payment page (issue 12). Both
 * are sent with the per-response CSP nonce; the page reads fully without the
 * script, which only adds: copy, local times and a countdown, the browser
 * wallet button, and live updates.
 *
 * Live updates: the script polls the public checkout JSON with backoff and,
 * when what it sees changes, fetches this page again and swaps only the
 * `[data-part]` regions whose server markup changed, so scroll, focus and a
 * "Copied" label elsewhere stay. The words stay the server's, in one place.
 * `stateOf` must be kept in step with `pollState` in checkout-page.ts.
 */

export const PAGE_STYLE = `:root{color-scheme:light dark;--bg:#f5f5f4;--card:#fff;--fg:#1c1917;--muted:#57534e;--line:#d6d3d1;--soft:#f5f5f4;--accent:#1d4ed8;--bad-bg:#fee2e2;--bad:#991b1b;--ok-bg:#dcfce7;--ok:#166534;--warn-bg:#fef3c7;--warn:#92400e}
@media (prefers-color-scheme:dark){:root{--bg:#0c0a09;--card:#1c1917;--fg:#f5f5f4;--muted:#c4bfbb;--line:#44403c;--soft:#292524;--accent:#93c5fd;--bad-bg:#450a0a;--bad:#fecaca;--ok-bg:#052e16;--ok:#bbf7d0;--warn-bg:#451a03;--warn:#fde68a}}
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg);line-height:1.4}
main{width:calc(100% - 1rem);max-width:28rem;margin:.5rem auto 1.5rem;padding:1.25rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
@media (min-width:480px){main{margin-top:2rem;padding:1.5rem}}
a{color:var(--accent)}:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
header{display:flex;align-items:center;gap:.75rem}header img{width:3rem;height:3rem;object-fit:contain;border-radius:.375rem}
header div{flex:1;min-width:0}h1{font-size:1.25rem;margin:0;overflow-wrap:anywhere}h2{font-size:1rem;margin:0}
nav{font-size:.875rem;white-space:nowrap}nav a{padding:.25rem}nav [aria-current]{font-weight:700;color:var(--fg);text-decoration:none}
.merchant,.label,.muted{color:var(--muted);font-size:.875rem;margin:.25rem 0}.label{margin-top:1rem}
.sandbox{display:inline-block;background:var(--warn-bg);color:var(--warn);border-radius:.25rem;padding:.125rem .5rem;font-size:.75rem}
.amount{font-size:1.75rem;font-weight:600;margin:.25rem 0;overflow-wrap:anywhere}
.status{padding:.625rem .75rem;border-radius:.5rem;background:var(--soft);margin:1rem 0}.status p{margin:.25rem 0 0;font-size:.875rem}
.status.closed{background:var(--bad-bg);color:var(--bad)}.status.paid{background:var(--ok-bg);color:var(--ok)}
.addr{display:block;font-family:ui-monospace,Menlo,Consolas,monospace;background:var(--soft);padding:.5rem;border-radius:.375rem;font-size:.95rem}
.addr span{display:inline-block;margin-right:.4em}.hash{font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere;font-size:.875rem}
button,.button{display:inline-block;margin:.5rem .5rem 0 0;padding:.5rem .875rem;border:1px solid var(--line);border-radius:.375rem;background:var(--card);color:var(--fg);font:inherit;font-size:.9rem;cursor:pointer;text-decoration:none}
.primary{background:var(--accent);border-color:var(--accent);color:var(--card)}
.qr{display:block;width:13rem;max-width:100%;margin:1rem auto .25rem;border:1px solid var(--line);border-radius:.375rem}.center{text-align:center}
details{font-size:.875rem;color:var(--muted);margin:.25rem 0}summary{cursor:pointer}details .hash{display:block;margin-top:.25rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;font-size:.9rem}dt{color:var(--muted)}dd{margin:0;min-width:0;overflow-wrap:anywhere}
ul{list-style:none;padding:0}li a{display:block;padding:.75rem;margin:.5rem 0;border:1px solid var(--line);border-radius:.5rem;color:inherit;text-decoration:none}
.off{position:fixed;top:0;left:-9999px}[hidden]{display:none!important}`;

export const PAGE_SCRIPT = `(function () {
  var body = document.body, d = body.dataset;
  function $(id) { return document.getElementById(id); }
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function times() {
    var els = document.querySelectorAll('time[data-local]');
    for (var i = 0; i < els.length; i++) {
      var t = new Date(els[i].getAttribute('datetime'));
      if (!isNaN(t)) els[i].textContent = t.toLocaleString(d.lang, { dateStyle: 'medium', timeStyle: 'short' });
    }
  }
  function expired() {
    var e = $('expires');
    return e ? new Date(e.getAttribute('datetime')).getTime() <= Date.now() : false;
  }
  function tick() {
    var e = $('expires'), left = $('left');
    if (e && left) {
      var s = Math.floor((new Date(e.getAttribute('datetime')).getTime() - Date.now()) / 1000);
      if (s <= 0) { left.textContent = ''; if (s > -2) later(1500); }
      else {
        var days = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
        left.textContent = '(' + (days > 0 ? days + 'd ' : '') + h + ':' + two(m) + ':' + two(s % 60) + ' ' + d.lLeft + ')';
      }
    }
  }
  function wallet() {
    var w = $('wallet');
    if (w && window.ethereum && typeof window.ethereum.request === 'function') w.hidden = false;
  }
  function copied(button) { button.textContent = d.lCopied; }
  function fallback(text, button) {
    var area = document.createElement('textarea');
    area.value = text; area.setAttribute('readonly', ''); area.className = 'off';
    body.appendChild(area); area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    body.removeChild(area);
    if (ok) return copied(button);
    var target = $(button.getAttribute('aria-controls'));
    if (target) { var range = document.createRange(); range.selectNodeContents(target); var sel = getSelection(); sel.removeAllRanges(); sel.addRange(range); }
    button.textContent = d.lPress;
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('[data-copy]') : null;
    if (button) {
      var text = button.getAttribute('data-copy');
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(function () { copied(button); }, function () { fallback(text, button); });
      else fallback(text, button);
      return;
    }
    if (event.target.id === 'wallet') pay(event.target);
  });
  function word(n) { return n.toString(16).padStart(64, '0'); }
  function pay(button) {
    var eth = window.ethereum, out = $('wallet-result'), from;
    var data = '0xa9059cbb' + word(BigInt(button.getAttribute('data-to'))) + word(BigInt(button.getAttribute('data-amount')));
    button.disabled = true;
    eth.request({ method: 'eth_requestAccounts' })
      .then(function (accounts) { from = accounts[0]; return eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: button.getAttribute('data-chain') }] }); })
      .then(function () { return eth.request({ method: 'eth_sendTransaction', params: [{ from: from, to: button.getAttribute('data-token'), data: data, value: '0x0' }] }); })
      .then(function (hash) { out.textContent = d.lSent + ' ' + hash; later(1000); },
        function (error) { out.textContent = d.lFailed + ' ' + ((error && error.message) || error); button.disabled = false; });
  }
  var known = {};
  function remember(root) {
    var parts = root.querySelectorAll('[data-part]');
    for (var i = 0; i < parts.length; i++) known[parts[i].id] = parts[i].innerHTML;
  }
  remember(document);
  function apply(html) {
    // Only <main> is parsed: the head's nonced <style> would be a CSP violation in the parsed copy.
    var doc = new DOMParser().parseFromString(html.slice(html.indexOf('<main>'), html.indexOf('</main>') + 7), 'text/html');
    var final = /data-final="(yes|no)"/.exec(html);
    var parts = doc.querySelectorAll('[data-part]');
    for (var i = 0; i < parts.length; i++) {
      var fresh = parts[i], here = $(fresh.id);
      if (here && known[fresh.id] !== fresh.innerHTML) { here.innerHTML = fresh.innerHTML; here.className = fresh.className; known[fresh.id] = fresh.innerHTML; }
    }
    d.final = final ? final[1] : 'no';
    times(); wallet(); tick();
  }
  function stateOf(c) {
    var s = c.group
      ? [c.status, c.cancelled_at || '', c.disabled_at || '', c.paid_public_id || '', c.options.map(function (o) { return (o.address ? '1' : '0') + o.received; }).join(',')]
      : [c.status, c.address ? '1' : '0', c.cancelled_at || '', c.disabled_at || '', c.received, c.tx_hash];
    return s.join('|') + '|' + (expired() ? 'x' : '');
  }
  var seen = d.state + '|' + (expired() ? 'x' : ''), delay = 2000, timer = null, busy = false;
  function later(ms) { if (d.final === 'yes') return; clearTimeout(timer); timer = setTimeout(poll, ms); }
  function poll() {
    if (busy) return later(500);
    busy = true;
    fetch(d.pollUrl, { cache: 'no-store', credentials: 'omit' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) {
        if (!c) return null;
        var state = stateOf(c);
        if (state === seen) { delay = Math.min(delay * 1.5, 30000); return null; }
        delay = 2000;
        return fetch(location.href, { cache: 'no-store', credentials: 'same-origin' })
          .then(function (r) { return r.ok ? r.text() : null; })
          .then(function (html) { if (html) { apply(html); seen = state; } });
      })
      .catch(function () { delay = Math.min(delay * 2, 30000); })
      .then(function () { busy = false; later(delay); });
  }
  times(); wallet(); tick();
  setInterval(tick, 1000);
  later(delay);
})();`;
