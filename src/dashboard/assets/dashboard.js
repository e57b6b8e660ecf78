/* global document, window, fetch, location, navigator, localStorage, crypto, URLSearchParams, setTimeout, clearTimeout, URL */
// The Ivory dashboard's one script (issue 25, decision 0030). It talks only to the
// public API on this origin, with the session cookie, the CSRF token the server put
// in <body data-csrf> and an Idempotency-Key on every write; it never decides what
// the API accepts: it sends what the person typed and shows the API's answer,
// errors next to the field they name.
(function () {
  'use strict';
  var d = document.body.dataset;
  var words = JSON.parse(document.getElementById('words').textContent);
  var labels = JSON.parse(document.getElementById('labels').textContent);
  var lang = document.documentElement.lang;
  function w(key) { return Object.prototype.hasOwnProperty.call(words, key) ? words[key] : key; }
  function $(selector, root) { return (root || document).querySelector(selector); }
  function $$(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }
  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') node.textContent = value;
      else node.setAttribute(name, value === true ? '' : value);
    });
    (children || []).forEach(function (child) { if (child !== null && child !== undefined) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child); });
    return node;
  }
  function newKey() { return crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2); }

  // ---- the API -------------------------------------------------------------
  function ApiError(status, code, details) { this.status = status; this.code = code; this.details = details; }
  function api(method, path, body, idempotencyKey) {
    var headers = { Accept: 'application/json' };
    if (d.csrf) headers['X-CSRF-Token'] = d.csrf;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET') headers['Idempotency-Key'] = idempotencyKey || newKey();
    return fetch(d.api + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) {
        return response.text().then(function (text) {
          var json = null;
          try { json = text ? JSON.parse(text) : null; } catch { json = null; }
          if (response.ok) return json;
          var error = (json && json.error) || {};
          // The session ended elsewhere (sign-out, expiry): back to the sign-in screen.
          if (response.status === 401 && d.csrf && d.screen !== 'sign-in') location.href = d.base + '/sign-in';
          throw new ApiError(response.status, error.code || 'unknown', error.details);
        });
      }, function () { throw new ApiError(0, 'network'); });
  }
  function message(error) {
    if (!(error instanceof ApiError)) return w('error.unknown');
    var known = w('error.' + error.code);
    if (known !== 'error.' + error.code) return known;
    var reason = error.details && typeof error.details.reason === 'string' ? ': ' + error.details.reason : '';
    return error.code + reason;
  }

  // ---- forms: progress, errors next to their field --------------------------
  function values(form) {
    var out = {};
    $$('input[name], select[name], textarea[name]', form).forEach(function (input) {
      if (input.type === 'checkbox') { (out[input.name] = out[input.name] || []); if (input.checked) out[input.name].push(input.value); }
      else if (!input.closest('[hidden]')) out[input.name] = input.value.trim();
    });
    return out;
  }
  function clearErrors(form) {
    $$('[data-error-for], [data-form-error]', form).forEach(function (p) { p.textContent = ''; });
    $$('[aria-invalid]', form).forEach(function (input) { input.removeAttribute('aria-invalid'); });
  }
  function showError(form, error) {
    var field = error && error.details && typeof error.details.field === 'string' ? error.details.field.split(/[.[]/)[0] : undefined;
    var target = field ? $('[data-error-for="' + field + '"]', form) : null;
    if (target && !target.closest('[hidden]')) {
      target.textContent = message(error);
      var input = $('[name="' + field + '"]', form);
      if (input) { input.setAttribute('aria-invalid', 'true'); input.focus(); }
    } else {
      $('[data-form-error]', form).textContent = message(error);
    }
  }
  function fieldError(field, code) { return new ApiError(400, code, { field: field }); }
  function busy(button, on) {
    if (!button) return;
    if (on) { button.dataset.label = button.textContent; button.textContent = w('working'); button.disabled = true; button.setAttribute('aria-busy', 'true'); }
    else {
      // A render during the work may have relabelled the button (Pause ↔ Enable): keep that label.
      if (button.textContent === w('working')) button.textContent = button.dataset.label || button.textContent;
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  }
  var actions = {};
  document.addEventListener('submit', function (event) {
    var form = event.target, handler = actions[form.dataset.action];
    if (!handler) return;
    event.preventDefault();
    clearErrors(form);
    // One key per intent: a retry after a lost answer repeats it, so the API does the write once.
    form.dataset.key = form.dataset.key || newKey();
    var button = $('button[type=submit]', form);
    busy(button, true);
    Promise.resolve()
      .then(function () { return handler(values(form), form, form.dataset.key); })
      .then(function () { delete form.dataset.key; }, function (error) {
        if (!(error instanceof ApiError) || (error.status > 0 && error.status < 500)) delete form.dataset.key;
        showError(form, error);
      })
      .then(function () { busy(button, false); });
  });
  function act(button, errorBox, work) {
    busy(button, true);
    if (errorBox) errorBox.textContent = '';
    return Promise.resolve().then(work).catch(function (error) { if (errorBox) errorBox.textContent = message(error); }).then(function () { busy(button, false); });
  }

  // ---- money and time, in the person's language and zone --------------------
  var decimalMark = (1.5).toLocaleString(lang).charAt(1);
  function formatUnits(base, decimals) {
    var value = BigInt(base), negative = value < 0n;
    if (negative) value = -value;
    var scale = 10n ** BigInt(decimals), whole = value / scale, fraction = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
    return (negative ? '-' : '') + whole.toLocaleString(lang) + (fraction ? decimalMark + fraction : '');
  }
  // The amount as the person typed it, in the decimal form the API reads (a comma mark becomes a point); the API judges it.
  function decimalText(text) { return String(text).replace(/[\s\u00a0]/g, '').replace(',', '.'); }
  function parseUnits(text, decimals, fieldName) {
    var clean = String(text).replace(/[\s\u00a0]/g, '').replace(',', '.');
    var match = /^(\d+)(?:\.(\d+))?$/.exec(clean);
    if (!match || (match[2] || '').length > decimals) throw fieldError(fieldName, 'invalid_amount');
    return (BigInt(match[1]) * 10n ** BigInt(decimals) + BigInt((match[2] || '').padEnd(decimals, '0') || '0')).toString();
  }
  function when(iso) { return iso ? new Date(iso).toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' }) : '—'; }
  function timeEl(iso) { return el('time', { datetime: iso, text: when(iso) }); }

  var tokens = {};
  function tokenKey(chainId, address) { return chainId + ':' + String(address).toLowerCase(); }
  function tokenOf(chainId, address) { return tokens[tokenKey(chainId, address)] || { symbol: String(address).slice(0, 8) + '…', decimals: null, network: String(chainId) }; }
  function amountText(base, chainId, address, decimals) {
    if (base === null || base === undefined) return '—';
    var token = tokenOf(chainId, address);
    return formatUnits(base, decimals === undefined || decimals === null ? token.decimals : decimals) + ' ' + token.symbol;
  }
  function loadNetworks() {
    if (!state.merchant) return Promise.resolve([]);
    return api('GET', '/merchants/' + state.merchant.id + '/networks').then(function (networks) {
      networks.forEach(function (network) {
        network.tokens.forEach(function (token) { tokens[tokenKey(network.chain_id, token.address)] = { symbol: token.symbol, decimals: token.decimals, network: network.name, minimum: network.minimum_payment }; });
      });
      return networks;
    });
  }
  function fillAssets(networks) {
    $$('select[data-assets]').forEach(function (select) {
      networks.forEach(function (network) {
        network.tokens.forEach(function (token) {
          select.appendChild(el('option', { value: network.chain_id + '|' + token.address, text: token.symbol + ' · ' + network.name }));
        });
      });
    });
    $$('[data-asset-checks]').forEach(function (fieldset) {
      var error = $('[data-error-for]', fieldset);
      networks.forEach(function (network) {
        network.tokens.forEach(function (token) {
          fieldset.insertBefore(el('label', { class: 'check' }, [el('input', { type: 'checkbox', name: 'assets', value: network.chain_id + '|' + token.address }), ' ' + token.symbol + ' · ' + network.name]), error);
        });
      });
    });
  }
  function statusChip(item) {
    var key = item.cancelled_at ? 'cancelled' : item.status;
    return el('span', { class: 'status ' + key, text: w('status.' + key) });
  }

  // ---- who, which merchant and shop, what they may do ----------------------
  var state = { merchant: null, shops: [], shop: null, canWrite: false };
  function loadContext() {
    return api('GET', '/merchants').then(function (merchants) {
      state.merchant = merchants[0] || null;
      var role = state.merchant ? state.merchant.role : 'viewer';
      state.canWrite = role === 'owner' || role === 'developer';
      $$('[data-write]').forEach(function (node) { node.hidden = !state.canWrite; });
      // A viewer sees neither keys, webhooks nor team; a developer no team (issue 25 item 3).
      $$('[data-restricted]').forEach(function (item) {
        var screen = item.dataset.restricted;
        item.hidden = screen === 'team' ? role !== 'owner' : !state.canWrite;
      });
      return state.merchant ? api('GET', '/merchants/' + state.merchant.id + '/shops') : [];
    }).then(function (shops) {
      state.shops = shops;
      var wanted = new URLSearchParams(location.search).get('shop') || localStorage.getItem('ivory.shop');
      state.shop = shops.filter(function (shop) { return shop.id === wanted; })[0] || shops[0] || null;
      var pick = $('#shop-pick');
      if (pick) {
        pick.textContent = '';
        shops.forEach(function (shop) { pick.appendChild(el('option', { value: shop.id, text: shop.name, selected: state.shop && shop.id === state.shop.id })); });
        pick.closest('label').hidden = shops.length === 0;
      }
      var badge = $('#shop-badge');
      if (badge && state.shop) { badge.hidden = false; badge.textContent = w(state.shop.sandbox ? 'sandbox' : 'live'); badge.className = 'badge' + (state.shop.sandbox ? ' sandbox' : ''); }
    });
  }
  function chooseShop(id) { localStorage.setItem('ivory.shop', id); }
  function shopPath(rest) { return '/shops/' + state.shop.id + rest; }
  function fillTable(id, rows) {
    var tbody = $('#' + id + ' tbody');
    tbody.textContent = '';
    rows.forEach(function (cells) { tbody.appendChild(el('tr', {}, cells.map(function (cell) { return el('td', {}, [cell]); }))); });
    $('[data-empty-for="' + id + '"]').hidden = rows.length > 0;
  }
  function appendRows(id, rows) {
    var tbody = $('#' + id + ' tbody');
    rows.forEach(function (cells) { tbody.appendChild(el('tr', {}, cells.map(function (cell) { return el('td', {}, [cell]); }))); });
    $('[data-empty-for="' + id + '"]').hidden = tbody.children.length > 0;
  }
  function mono(text) { return el('span', { class: 'mono', text: text }); }
  function revealSecret(value) {
    $('#secret-value').textContent = value;
    $('#secret-box').hidden = false;
    $('#secret-box button').focus();
  }

  // ---- header: shop, language, theme, sign-out -----------------------------
  document.addEventListener('change', function (event) {
    if (event.target.id === 'shop-pick') { chooseShop(event.target.value); location.search = ''; }
    if (event.target.id === 'shop-payout_target') $('[data-recipient-field]').hidden = event.target.value === 'wallet';
  });
  function cookie(name, value) { document.cookie = name + '=' + value + '; Path=' + d.base + '; Max-Age=31536000; SameSite=Lax'; }
  function savePreferences(preferences) {
    if (!d.csrf || d.screen === 'sign-in') return Promise.resolve();
    return api('PATCH', '/profile', { preferences: preferences }).catch(function () { return null; });
  }
  document.addEventListener('click', function (event) {
    var target = event.target.closest ? event.target.closest('a, button') : null;
    if (!target) return;
    if (target.dataset.lang) {
      event.preventDefault();
      savePreferences({ language: target.dataset.lang }).then(function () { location.href = target.href; });
    } else if (target.dataset.themeChoice) {
      event.preventDefault();
      var theme = target.dataset.themeChoice;
      document.documentElement.dataset.theme = theme;
      cookie('ivory_theme', theme);
      if ($('#profile-theme')) $('#profile-theme').value = theme;
      $$('[data-theme-choice]').forEach(function (link) { if (link === target) link.setAttribute('aria-current', 'true'); else link.removeAttribute('aria-current'); });
      savePreferences({ theme: theme });
    } else if (target.id === 'sign-out') {
      act(target, null, function () { return api('POST', '/auth/logout').then(function () { location.href = d.base + '/sign-in'; }); });
    } else if (target.dataset.copyTarget) {
      copy($('#' + target.dataset.copyTarget).textContent, target);
    } else if (target.dataset.copy) {
      copy(target.dataset.copy, target);
    }
  });
  function copy(text, button) {
    function done() { button.textContent = w('copied'); }
    function fallback() {
      var area = el('textarea', { readonly: true, class: 'visually-hidden' });
      area.value = text; document.body.appendChild(area); area.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch { ok = false; }
      document.body.removeChild(area);
      if (ok) done();
    }
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  }

  // ---- sign-in and onboarding ---------------------------------------------
  function next() {
    var wanted = new URLSearchParams(location.search).get('next');
    return wanted && wanted.indexOf(d.base + '/') === 0 && wanted.indexOf('//', 1) === -1 ? wanted : d.base + '/';
  }
  function afterSignIn(user) {
    if (user && user.mfa_required) { location.href = d.base + '/sign-in' + location.search; return; }
    // The profile's language and theme follow the person to this browser.
    return fetch(d.api + '/profile', { credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.json() : null; }, function () { return null; })
      .then(function (profile) {
        var preferences = profile && profile.preferences;
        if (preferences && preferences.language) cookie('ivory_lang', preferences.language);
        if (preferences && preferences.theme) cookie('ivory_theme', preferences.theme);
        location.href = next();
      });
  }
  actions.emailStart = function (fields) {
    return api('POST', '/auth/email/start', { email: fields.email }).then(function (answer) {
      var form = $('#code');
      form.dataset.challenge = answer.challenge_id;
      form.hidden = false;
      $('#code-code').focus();
    });
  };
  actions.emailVerify = function (fields, form) {
    return api('POST', '/auth/email/verify', { challenge_id: form.dataset.challenge, code: fields.code, cookie: true }).then(function (session) { return afterSignIn(session.user); }, codeError);
  };
  // A refused proof says nothing of which part was wrong; the code is what the person can retype.
  function codeError(error) {
    if (error.code === 'unauthorized' || error.code === 'invalid_code') error.details = { field: 'code' };
    throw error;
  }
  actions.totp = function (fields) { return api('POST', '/auth/totp/verify', { code: fields.code }).then(function () { location.href = next(); }, codeError); };
  actions.recovery = function (fields) { return api('POST', '/auth/recovery', { code: fields.code }).then(function () { location.href = next(); }, codeError); };
  actions.onboard = function (fields, form, key) {
    var body = { name: fields.name };
    if (fields.email) body.email = fields.email;
    return api('POST', '/onboarding', body, key).then(function () { location.href = d.base + '/shops'; }, function (error) {
      if (error.code === 'email_required') { $('[data-email-field]', form).hidden = false; error.details = { field: 'email' }; }
      throw error;
    });
  };
  actions.acceptInvite = function (fields, form, key) {
    return api('POST', '/invites/' + encodeURIComponent(d.item) + '/accept', undefined, key).then(function () {
      form.hidden = true;
      $('#invite-done').hidden = false;
      $('#invite-done').appendChild(el('a', { href: d.base + '/', text: ' →' }));
    });
  };

  // ---- shops ----------------------------------------------------------------
  // Archived shops too (decision 0038): listed with their badge, no settings link, no archive button.
  function renderShops() {
    if (!state.merchant) return fillTable('shops-table', []);
    var t = labels.shops, owner = state.merchant.role === 'owner';
    return api('GET', '/merchants/' + state.merchant.id + '/shops?include_archived=true').then(function (shops) {
      fillTable('shops-table', shops.map(function (shop) {
        var archived = Boolean(shop.archived_at);
        var archive = owner && !archived ? el('button', { type: 'button', class: 'danger', 'data-shop-archive': shop.id, 'aria-label': t.archive + ' ' + shop.name, text: t.archive }) : '';
        return [
          archived ? shop.name : el('a', { href: d.base + '/shops/' + shop.id, text: shop.name }),
          el('span', { class: 'badge' + (shop.sandbox ? ' sandbox' : ''), text: w(shop.sandbox ? 'sandbox' : 'live') }),
          mono(shop.recipient || '—'),
          timeEl(shop.created_at),
          el('span', { class: 'badge' + (archived ? ' archived' : ''), text: archived ? t.archived : t.active }),
          archive,
        ];
      }));
    });
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button[data-shop-archive]') : null;
    if (!button || !window.confirm(labels.shops.archiveConfirm)) return;
    act(button, $('#action-error'), function () {
      return api('POST', '/shops/' + button.dataset.shopArchive + '/archive').then(loadContext).then(renderShops);
    });
  });
  actions.createShop = function (fields, form, key) {
    var body = { name: fields.name, sandbox: fields.sandbox === 'true' };
    // SPEC "Shop": payout_target wallet is sent without a recipient.
    if (fields.payout_target === 'wallet') body.payout_target = 'wallet';
    else if (fields.recipient) body.recipient = fields.recipient;
    if (fields.delegate) body.delegate = fields.delegate;
    return api('POST', '/merchants/' + state.merchant.id + '/shops', body, key).then(function (shop) {
      chooseShop(shop.id);
      form.reset();
      return loadContext().then(renderShops);
    });
  };

  // ---- one shop's settings ---------------------------------------------------------
  function settingsShop() { return state.shops.filter(function (shop) { return shop.id === d.item; })[0]; }
  function fileBase64(input, fieldName) {
    var file = input.files[0];
    if (!file) return Promise.resolve(undefined);
    return new Promise(function (resolve, reject) {
      var reader = new window.FileReader();
      reader.onload = function () { resolve(String(reader.result).replace(/^data:[^,]*,/, '')); };
      reader.onerror = function () { reject(fieldError(fieldName, 'invalid_image')); };
      reader.readAsDataURL(file);
    });
  }
  function renderShop() {
    var shop = settingsShop(), t = labels.shops;
    if (!shop) throw new ApiError(404, 'shop_not_found');
    $('#shop-title').textContent = shop.name;
    $('#shop-title').appendChild(document.createTextNode(' '));
    $('#shop-title').appendChild(el('span', { class: 'badge' + (shop.sandbox ? ' sandbox' : ''), text: w(shop.sandbox ? 'sandbox' : 'live') }));
    $('#payout-recipient').value = shop.recipient || '';
    $('#payout-delegate').value = shop.delegate || '';
    $('#payout-solana_payout_target').value = shop.solana_payout_target;
    $('#payout-tron_payout_target').value = shop.tron_payout_target;
    [['solana', shop.solana_recipient], ['tron', shop.tron_recipient]].forEach(function (pair) {
      if (pair[1]) $('#' + pair[0] + '-recipient-address').value = pair[1];
    });
    $$('[data-owner]').forEach(function (node) { node.hidden = state.merchant.role !== 'owner'; });
    return api('GET', '/shops/' + shop.id + '/terms').then(function (terms) {
      function fee(terms) { return (terms.bps / 100).toLocaleString(lang) + ' % (' + formatUnits(terms.minimum, 18) + ' – ' + formatUnits(terms.maximum, 18) + ')'; }
      fillTable('terms-table', terms.map(function (network) { return [network.name, fee(network.invoice), fee(network.deposit), network.sweep_threshold + ' (' + network.minimum_sweep + ' – ' + network.maximum_sweep + ')']; }));
      return t;
    });
  }
  function saved() { $('#shop-saved').hidden = false; return loadContext().then(renderShop); }
  actions.savePayout = function (fields, form, key) {
    var shop = settingsShop(), body = {};
    if (fields.recipient !== (shop.recipient || '')) body.recipient = fields.recipient;
    if (fields.delegate !== (shop.delegate || '')) body.delegate = fields.delegate || null;
    if (fields.solana_payout_target !== shop.solana_payout_target) body.solana_payout_target = fields.solana_payout_target;
    if (fields.tron_payout_target !== shop.tron_payout_target) body.tron_payout_target = fields.tron_payout_target;
    return api('PATCH', '/shops/' + shop.id, body, key).then(saved);
  };
  actions.setRecipient = function (fields, form, key) {
    var family = $('[name=address]', form).dataset.family;
    return api('PUT', '/shops/' + d.item + '/' + family + '-recipient', { address: fields.address }, key).then(saved);
  };
  actions.saveBranding = function (fields, form, key) {
    return fileBase64($('#branding-logo'), 'logo').then(function (logo) {
      var body = {};
      if (fields.name) body.name = fields.name;
      if (logo) body.logo = logo;
      return api('PATCH', '/shops/' + d.item + '/branding', body, key);
    }).then(function () { form.reset(); $('#shop-saved').hidden = false; });
  };

  // ---- invoices -------------------------------------------------------------
  var listCursor = null;
  function invoiceRow(item) {
    var option = item.group ? item.options[0] : item;
    var amount = item.group ? (item.amount === null ? '—' : item.amount + ' ' + tokenOf(option.chain_id, option.token).symbol) : amountText(item.amount, item.chain_id, item.token, item.token_decimals);
    var received = item.group ? '—' : amountText(item.received, item.chain_id, item.token, item.token_decimals);
    return [el('a', { href: d.base + '/invoices/' + item.id + '?shop=' + state.shop.id }, [timeEl(item.created_at)]), labels.invoices[item.kind] || item.kind, amount, received, statusChip(item), item.external_id || ''];
  }
  // The screen's filters (in the address, so a filtered view can be reloaded and shared) as the API's query: `names` as they are, the token and the days as the API takes them.
  function filterQuery(names, out) {
    var query = new URLSearchParams(location.search);
    names.forEach(function (name) { if (query.get(name)) out.set(name, query.get(name)); });
    if (query.get('asset')) { var parts = query.get('asset').split('|'); out.set('chain_id', parts[0]); out.set('token', parts[1]); }
    // Whole days in the person's time zone.
    if (query.get('created_after')) out.set('created_after', new Date(query.get('created_after') + 'T00:00:00').toISOString());
    if (query.get('created_before')) out.set('created_before', new Date(query.get('created_before') + 'T23:59:59.999').toISOString());
    return out;
  }
  function listQuery() { return filterQuery(['kind', 'status', 'cancelled', 'external_id'], new URLSearchParams({ limit: '20' })); }
  function loadInvoices(append) {
    var query = listQuery();
    if (append && listCursor) query.set('cursor', listCursor);
    var table = $('#invoices-table');
    table.setAttribute('aria-busy', 'true');
    return api('GET', shopPath('/issuances?' + query.toString())).then(function (page) {
      (append ? appendRows : fillTable)('invoices-table', page.data.map(invoiceRow));
      listCursor = page.next_cursor;
      $('#more').hidden = !listCursor;
    }, function (error) { $('#filters [data-form-error]').textContent = message(error); }).then(function () { table.removeAttribute('aria-busy'); });
  }
  function restoreFilters() {
    var query = new URLSearchParams(location.search);
    $$('#filters [name]').forEach(function (input) { if (query.get(input.name)) input.value = query.get(input.name); });
  }
  document.addEventListener('submit', function (event) {
    if (!event.target.hasAttribute('data-filters')) return;
    event.preventDefault();
    var query = new URLSearchParams();
    $$('[name]', event.target).forEach(function (input) { if (input.value) query.set(input.name, input.value); });
    location.search = query.toString();
  });
  function assetOf(value) { var parts = String(value || '').split('|'); return { chain_id: Number(parts[0]), token: parts[1] }; }
  actions.createInvoice = function (fields, form, key) {
    if (!fields.asset) throw fieldError('asset', 'unsupported_asset');
    var asset = assetOf(fields.asset), deposit = fields.kind === 'deposit';
    // Options ticked besides the chosen one: with any, the API makes a group and the payer picks one.
    var more = (fields.assets || []).filter(function (value, index, all) { return value !== fields.asset && all.indexOf(value) === index; });
    var body = more.length ? { assets: [fields.asset].concat(more).map(assetOf) } : { chain_id: asset.chain_id, token: asset.token };
    if (!deposit) {
      // With assets SPEC takes the decimal token amount itself (10.5); without, base units of the one token.
      body.amount = more.length ? decimalText(fields.amount) : parseUnits(fields.amount, tokenOf(asset.chain_id, asset.token).decimals, 'amount');
      body.expires_in = fields.expires_in;
    }
    if (fields.external_id) body.external_id = fields.external_id;
    if (fields.description) body.description = fields.description;
    return api('POST', shopPath(deposit ? '/deposits' : '/invoices'), body, key).then(function (created) {
      location.href = d.base + '/invoices/' + created.id + '?shop=' + state.shop.id;
    }, function (error) {
      // The API names the token pair; the person chose it in one control.
      if (error.details && /^(chain_id|token|assets)/.test(String(error.details.field))) error.details.field = 'asset';
      if (['unsupported_network', 'unsupported_asset', 'network_not_ready', 'asset_not_ready'].indexOf(error.code) >= 0) error.details = { field: 'asset' };
      if (['amount_below_minimum', 'sandbox_amount_limit', 'invoice_amount_limit', 'fee_exceeds_amount'].indexOf(error.code) >= 0) error.details = { field: 'amount' };
      // A group's refusal names the failing option {chain_id, token} (SPEC rule 2): shown by the options it concerns.
      else if (more.length && error.details && error.details.chain_id !== undefined && !error.details.field) error.details = { field: 'assets' };
      if (more.length && error.details && error.details.field === 'asset') error.details.field = 'assets';
      throw error;
    });
  };
  function kindSwitch() {
    var kind = $('#invoice-kind');
    if (!kind) return;
    function apply() {
      var deposit = kind.value === 'deposit';
      $('#invoice-amount').closest('.field').hidden = deposit;
      $('#invoice-expires_in').closest('.field').hidden = deposit;
    }
    kind.addEventListener('change', apply);
    apply();
  }

  // ---- one invoice ------------------------------------------------------------
  var issuance = null, lastTransferEvent = null, seen = '', pollTimer = null, pollDelay = 2000;
  function fact(list, label, value) { list.appendChild(el('dt', { text: label })); list.appendChild(el('dd', {}, [value])); }
  function renderInvoice(item) {
    issuance = item;
    var t = labels.invoices;
    var list = $('#invoice-facts');
    list.textContent = '';
    var option = item.group ? item.options[0] : item;
    $('#invoice-status').textContent = '';
    $('#invoice-status').appendChild(statusChip(item));
    fact(list, t.kind, t[item.kind] || item.kind);
    fact(list, t.amount, item.group ? (item.amount || '—') + ' ' + tokenOf(option.chain_id, option.token).symbol : amountText(item.amount, item.chain_id, item.token, item.token_decimals));
    if (!item.group) fact(list, t.received, amountText(item.received, item.chain_id, item.token, item.token_decimals));
    fact(list, t.network, (item.group ? item.options : [option]).map(function (one) { var token = tokenOf(one.chain_id, one.token); return item.group ? token.symbol + ' · ' + token.network : token.network; }).join(', '));
    var link = el('span', {}, [el('a', { href: item.payment_url, id: 'payment-link', target: '_blank', rel: 'noopener', text: item.payment_url }), ' ', el('button', { type: 'button', 'data-copy': item.payment_url, text: w('copy') })]);
    fact(list, t.paymentLink, link);
    if (!item.group) fact(list, t.address, mono(item.address || '…'));
    if (item.expires_at) fact(list, t.expires, timeEl(item.expires_at));
    if (item.cancelled_at) fact(list, t.cancelled, timeEl(item.cancelled_at));
    if (item.payout_tx_hash) fact(list, t.payoutTx, mono(item.payout_tx_hash));
    if (item.external_id) fact(list, t.externalId, item.external_id);
    fact(list, t.created, timeEl(item.created_at));
    var qr = $('#invoice-qr');
    qr.src = d.base + '/qr.svg?text=' + encodeURIComponent(item.payment_url);
    qr.hidden = false;
    var open = !item.cancelled_at && (item.status === 'open' || item.status === 'registering');
    $('#cancel-invoice').hidden = !(open && item.kind === 'invoice');
    var toggle = $('#toggle-deposit');
    toggle.hidden = item.kind !== 'deposit';
    toggle.textContent = item.disabled_at ? toggle.dataset.enable : toggle.dataset.pause;
    $('[data-sandbox-only]').hidden = !state.shop.sandbox;
  }
  // A live transaction links to its explorer page (the API builds the link from the catalogue); a sandbox hash is on no chain.
  function txCell(payment) {
    if (!payment.tx_hash) return '—';
    if (!payment.explorer_url) return mono(payment.tx_hash);
    return el('a', { href: payment.explorer_url, target: '_blank', rel: 'noopener noreferrer', class: 'mono', text: payment.tx_hash });
  }
  function paymentRow(payment) {
    return [timeEl(payment.created_at), payment.type, amountText(payment.amount, payment.chain_id, payment.token, payment.token_decimals), el('span', { class: 'status ' + payment.status, text: payment.status }), txCell(payment)];
  }
  function deliveryCounts(event) {
    return Object.keys(event.deliveries).filter(function (status) { return event.deliveries[status] > 0; }).map(function (status) { return status + ': ' + event.deliveries[status]; }).join(', ') || '—';
  }
  // This invoice's own payments and events, whatever their age, page by page: the lists filtered by issuance_id (a group's id covers its options; decision 0038).
  var invoiceHistory = {
    transfers: { path: '/payments', table: 'transfers-table', button: '#transfers-more', row: paymentRow, cursor: null },
    events: { path: '/events', table: 'invoice-events-table', button: '#invoice-events-more', row: function (event) { return [timeEl(event.created_at), event.type, deliveryCounts(event)]; }, cursor: null },
  };
  function loadHistory(name, item, append) {
    var list = invoiceHistory[name], query = new URLSearchParams({ issuance_id: item.id, limit: '50' });
    if (append && list.cursor) query.set('cursor', list.cursor);
    return api('GET', shopPath(list.path + '?' + query.toString())).then(function (page) {
      (append ? appendRows : fillTable)(list.table, page.data.map(list.row));
      list.cursor = page.next_cursor;
      $(list.button).hidden = !list.cursor;
    });
  }
  function loadInvoiceHistory(item) { return Promise.all([loadHistory('transfers', item, false), loadHistory('events', item, false)]); }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button[data-more]') : null;
    if (button && issuance) act(button, $('#history-error'), function () { return loadHistory(button.dataset.more, issuance, true); });
  });
  function loadInvoice() {
    return api('GET', shopPath('/issuances/' + encodeURIComponent(d.item))).then(function (item) {
      var fingerprint = JSON.stringify(item);
      if (fingerprint === seen) { pollDelay = Math.min(pollDelay * 1.5, 30000); return item; }
      seen = fingerprint;
      pollDelay = 2000;
      renderInvoice(item);
      return loadInvoiceHistory(item).then(function () { return item; });
    }).then(function () {
      clearTimeout(pollTimer);
      // Allocation, confirmations and payouts happen in workers: keep watching, slower while nothing changes.
      pollTimer = setTimeout(pollInvoice, pollDelay);
    });
  }
  // A failed refresh (network, a server restarting) is shown and tried again, later each time; the next good one clears it.
  var refreshFailed = false;
  function pollInvoice() {
    loadInvoice().then(function () {
      if (refreshFailed) $('#history-error').textContent = '';
      refreshFailed = false;
    }, function (error) {
      refreshFailed = true;
      $('#history-error').textContent = message(error);
      pollDelay = Math.min(pollDelay * 2, 30000);
      clearTimeout(pollTimer);
      pollTimer = setTimeout(pollInvoice, pollDelay);
    });
  }
  function optionId() { return issuance.group ? (issuance.paid_issuance_id || issuance.options[0].id) : issuance.id; }
  function simulate(kind, button) {
    var errorBox = $('#simulate-error');
    return act(button, errorBox, function () {
      var body = { issuance_id: optionId(), kind: kind, amount: '0' };
      if (kind === 'transfer.confirmed') {
        var typed = $('#simulate-amount').value.trim(), decimals = issuance.group ? issuance.options[0].token_decimals : issuance.token_decimals;
        if (typed) body.amount = parseUnits(typed, decimals, 'amount');
        else if (issuance.amount !== null && !issuance.group) body.amount = (BigInt(issuance.amount) - BigInt(issuance.received) > 0n ? BigInt(issuance.amount) - BigInt(issuance.received) : BigInt(issuance.amount)).toString();
        else throw new ApiError(400, 'invalid_amount');
      }
      if (kind === 'transfer.reverted') body.reference_event_id = lastTransferEvent || '';
      return api('POST', shopPath('/sandbox/simulate'), body).then(function (answer) {
        if (kind === 'transfer.confirmed') lastTransferEvent = answer.event_id;
        return loadInvoice();
      });
    });
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button') : null;
    if (!button || !issuance) return;
    if (button.dataset.simulate) simulate(button.dataset.simulate, button);
    else if (button.id === 'cancel-invoice') {
      if (!window.confirm(button.dataset.confirm)) return;
      act(button, $('#action-error'), function () { return api('POST', shopPath('/invoices/' + issuance.id + '/cancel')).then(loadInvoice); });
    } else if (button.id === 'toggle-deposit') {
      act(button, $('#action-error'), function () { return api('PATCH', shopPath('/deposits/' + issuance.id), { enabled: Boolean(issuance.disabled_at) }).then(loadInvoice); });
    }
  });

  // ---- developers: keys, webhooks, deliveries, events ------------------------
  function loadKeys() {
    return api('GET', shopPath('/keys')).then(function (keys) {
      var list = Array.isArray(keys) ? keys : keys.data;
      var t = labels.keys;
      fillTable('keys-table', list.map(function (key) {
        var controls = state.canWrite
          ? el('span', {}, [
            el('button', { type: 'button', 'data-key-toggle': key.id, 'data-enabled': String(key.enabled), text: key.enabled ? t.disable : t.enableKey }),
            el('button', { type: 'button', class: 'danger', 'data-key-revoke': key.id, 'aria-label': t.revoke + ' ' + key.name, text: t.revoke }),
          ])
          : '';
        var scopes = key.scopes.join(', ') + (key.allowed_ips.length ? ' · ' + key.allowed_ips.join(', ') : '');
        return [key.name, scopes, mono(key.token_prefix + '…'), key.last_used_at ? timeEl(key.last_used_at) : t.never, key.enabled ? t.enabled : t.disabled, controls];
      }));
    });
  }
  actions.createKey = function (fields, form, key) {
    var body = { name: fields.name, scopes: fields.scopes };
    if (fields.allowed_ips) body.allowed_ips = fields.allowed_ips.split(',').map(function (ip) { return ip.trim(); }).filter(Boolean);
    return api('POST', shopPath('/keys'), body, key).then(function (created) {
      form.reset();
      revealSecret(created.token);
      return loadKeys();
    });
  };
  function loadWebhooks() {
    return api('GET', shopPath('/webhooks')).then(function (answer) {
      var list = Array.isArray(answer) ? answer : answer.data;
      var t = labels.webhooks;
      fillTable('webhooks-table', list.map(function (endpoint) {
        var remove = state.canWrite ? el('button', { type: 'button', class: 'danger', 'data-webhook-delete': endpoint.id, 'aria-label': t.remove + ' ' + endpoint.url, text: t.remove }) : '';
        return [mono(endpoint.url), endpoint.filters.join(', '), el('span', { class: 'status ' + (endpoint.enabled ? 'open' : 'failed'), text: endpoint.enabled ? '✓' : endpoint.disabled_reason || '×' }), remove];
      }));
    });
  }
  actions.createWebhook = function (fields, form, key) {
    return api('POST', shopPath('/webhooks'), { url: fields.url, filters: fields.filters }, key).then(function (created) {
      form.reset();
      revealSecret(created.secret);
      return loadWebhooks();
    });
  };
  function outcome(attempt) {
    var t = labels.deliveries;
    return attempt.status_code === null ? t.noAnswer + (attempt.error ? ' (' + attempt.error + ')' : '') : String(attempt.status_code);
  }
  // Every attempt, newest last: when, what came back, how long it took.
  function attemptList(delivery) {
    if (delivery.attempts.length === 0) return String(delivery.attempt_count);
    return el('details', {}, [el('summary', { text: String(delivery.attempt_count) }), el('ol', {}, delivery.attempts.map(function (attempt) {
      return el('li', {}, [timeEl(attempt.started_at), ' · ' + outcome(attempt) + ' · ' + attempt.latency_ms + ' ms']);
    }))]);
  }
  function loadDeliveries() {
    return api('GET', shopPath('/deliveries')).then(function (page) {
      var t = labels.deliveries;
      fillTable('deliveries-table', page.data.map(function (delivery) {
        var last = delivery.attempts[delivery.attempts.length - 1];
        var replay = state.canWrite ? el('button', { type: 'button', 'data-replay': delivery.id, text: t.replay }) : '';
        return [timeEl(delivery.created_at), delivery.event_type, el('span', { class: 'status ' + delivery.status, text: delivery.status }), last ? outcome(last) : '—', last ? last.latency_ms + ' ms' : '—', attemptList(delivery), replay];
      }));
    });
  }
  function loadEvents() {
    return api('GET', shopPath('/events')).then(function (page) {
      fillTable('events-table', page.data.map(function (event) { return [timeEl(event.created_at), event.type, mono(event.id), deliveryCounts(event)]; }));
    });
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button') : null;
    if (!button) return;
    var errorBox = $('#action-error') || $('[data-form-error]');
    if (button.dataset.keyRevoke) {
      if (!window.confirm(labels.keys.revokeConfirm)) return;
      act(button, errorBox, function () { return api('DELETE', shopPath('/keys/' + button.dataset.keyRevoke)).then(loadKeys); });
    } else if (button.dataset.keyToggle) {
      act(button, errorBox, function () { return api('PATCH', shopPath('/keys/' + button.dataset.keyToggle), { enabled: button.dataset.enabled !== 'true' }).then(loadKeys); });
    } else if (button.dataset.webhookDelete) {
      if (!window.confirm(labels.webhooks.removeConfirm)) return;
      act(button, errorBox, function () { return api('DELETE', shopPath('/webhooks/' + button.dataset.webhookDelete)).then(loadWebhooks); });
    } else if (button.dataset.replay) {
      act(button, errorBox, function () { return api('POST', shopPath('/deliveries/' + button.dataset.replay + '/replay')).then(loadDeliveries); });
    } else if (button.id === 'more') {
      act(button, null, function () { return d.screen === 'payments' ? loadPayments(true) : loadInvoices(true); });
    }
  });

  // ---- payments and overview --------------------------------------------------
  var paymentsCursor = null;
  // The list and the export take the same filters (decision 0038): the CSV holds exactly what the filtered list shows.
  function paymentsFilter() { return filterQuery(['type', 'status', 'issuance_id'], new URLSearchParams()); }
  function loadPayments(append) {
    var query = paymentsFilter();
    query.set('limit', '50');
    if (append && paymentsCursor) query.set('cursor', paymentsCursor);
    var table = $('#payments-table');
    table.setAttribute('aria-busy', 'true');
    return api('GET', shopPath('/payments?' + query.toString())).then(function (page) {
      (append ? appendRows : fillTable)('payments-table', page.data.map(paymentRow));
      paymentsCursor = page.next_cursor;
      $('#more').hidden = !paymentsCursor;
    }, function (error) {
      $('#filters').closest('details').open = true;
      $('#filters [data-form-error]').textContent = message(error);
    }).then(function () { table.removeAttribute('aria-busy'); });
  }
  function showPayments() {
    var filter = paymentsFilter().toString();
    // Filters in force stay in view, so that the list is never mistaken for the whole history.
    if (filter) $('#filters').closest('details').open = true;
    $('#export-csv').href = d.api + shopPath('/export.csv' + (filter ? '?' + filter : ''));
    restoreFilters();
    return loadNetworks().then(fillAssets).then(function () { restoreFilters(); return loadPayments(false); });
  }
  // Received money and deposits waiting for a sweep: read by the server over the whole history (the API has no route for them) and sent with the page.
  var figures = document.getElementById('overview-figures') ? JSON.parse(document.getElementById('overview-figures').textContent) : { pending_sweeps: {}, received: {} };
  function amountsText(amounts) {
    return amounts.length ? amounts.map(function (a) { return amountText(a.amount, a.chain_id, a.token, a.token_decimals); }).join(', ') : labels.overview.nothing;
  }
  function waitingSweeps(shopId) {
    var figure = figures.pending_sweeps[shopId];
    if (!figure || figure.deposits === 0) return '0';
    return figure.deposits + ' (' + amountsText(figure.amounts) + ')';
  }
  function overviewCard(shop) {
    var t = labels.overview;
    var card = el('section', { class: 'card', 'aria-busy': 'true' }, [el('h2', {}, [el('a', { href: d.base + '/invoices?shop=' + shop.id, text: shop.name }), ' ', el('span', { class: 'badge' + (shop.sandbox ? ' sandbox' : ''), text: w(shop.sandbox ? 'sandbox' : 'live') })])]);
    var path = '/shops/' + shop.id, received = figures.received[shop.id] || { last_7_days: [], last_30_days: [] };
    Promise.all([
      api('GET', path + '/issuances?status=open&cancelled=false&limit=100'),
      state.canWrite ? api('GET', path + '/webhooks') : Promise.resolve([]),
    ]).then(function (answers) {
      var endpoints = Array.isArray(answers[1]) ? answers[1] : answers[1].data || [];
      var open = answers[0].data.length + (answers[0].next_cursor ? '+' : '');
      [[t.last7, amountsText(received.last_7_days)], [t.last30, amountsText(received.last_30_days)], [t.openInvoices, String(open)], [t.pendingSweeps, waitingSweeps(shop.id)], [t.failingEndpoints, String(endpoints.filter(function (e) { return !e.enabled; }).length)]].forEach(function (pair) {
        card.appendChild(el('p', {}, [el('span', { class: 'muted', text: pair[0] + ': ' }), pair[1]]));
      });
    }, function (error) { card.appendChild(el('p', { class: 'error', text: message(error) })); }).then(function () { card.removeAttribute('aria-busy'); });
    return card;
  }

  // ---- team -------------------------------------------------------------------
  function shopName(id) {
    if (!id) return labels.team.allShops;
    var shop = state.shops.filter(function (candidate) { return candidate.id === id; })[0];
    return shop ? shop.name : id;
  }
  function roleName(role) { return (labels.team[role] || role).replace(/ \(.*$/, ''); }
  function loadTeam() {
    var t = labels.team;
    return api('GET', '/merchants/' + state.merchant.id + '/team').then(function (team) {
      fillTable('members-table', team.grants.map(function (grant) {
        var remove = el('button', { type: 'button', class: 'danger', 'data-grant-remove': grant.id, 'aria-label': t.remove + ' ' + (grant.email || grant.user_id), text: t.remove });
        return [grant.email || grant.user_id, roleName(grant.role), shopName(grant.shop_id), timeEl(grant.created_at), remove];
      }));
      fillTable('invitations-table', team.invitations.map(function (invitation) {
        var revoke = el('button', { type: 'button', class: 'danger', 'data-invite-revoke': invitation.id, 'aria-label': t.revoke + ' ' + invitation.subject, text: t.revoke });
        return [invitation.subject, roleName(invitation.role), shopName(invitation.shop_id), timeEl(invitation.expires_at), revoke];
      }));
    });
  }
  actions.invite = function (fields, form, key) {
    $('#team-sent').hidden = true;
    return api('POST', '/merchants/' + state.merchant.id + '/invites', { provider: 'email', subject: fields.subject, role: fields.role, shop_id: fields.shop_id || null }, key).then(function () {
      form.reset();
      $('#team-sent').hidden = false;
      return loadTeam();
    });
  };
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button') : null;
    if (!button || !state.merchant) return;
    var base = '/merchants/' + state.merchant.id;
    if (button.dataset.grantRemove) {
      if (!window.confirm(labels.team.removeConfirm)) return;
      act(button, $('#action-error'), function () { return api('DELETE', base + '/grants/' + button.dataset.grantRemove).then(loadTeam); });
    } else if (button.dataset.inviteRevoke) {
      if (!window.confirm(labels.team.revokeConfirm)) return;
      act(button, $('#action-error'), function () { return api('DELETE', base + '/invites/' + button.dataset.inviteRevoke).then(loadTeam); });
    }
  });

  // ---- account: profile and security -------------------------------------------
  function loadProfile() {
    return api('GET', '/profile').then(function (profile) {
      $('#profile-display_name').value = profile.display_name;
      $('#profile-language').value = profile.preferences.language || lang;
      $('#profile-theme').value = profile.preferences.theme || document.documentElement.dataset.theme;
      showAvatar(profile.avatar_url);
    });
  }
  function showAvatar(url) { var img = $('#avatar-image'); if (url) { img.src = url; img.hidden = false; } }
  actions.saveProfile = function (fields) {
    var before = { language: lang, theme: document.documentElement.dataset.theme };
    return api('PATCH', '/profile', { display_name: fields.display_name, preferences: { language: fields.language, theme: fields.theme } }).then(function () {
      cookie('ivory_lang', fields.language);
      cookie('ivory_theme', fields.theme);
      if (before.language !== fields.language || before.theme !== fields.theme) { location.href = location.pathname; return; }
      $('#profile-saved').hidden = false;
    });
  };
  actions.uploadAvatar = function () {
    var file = $('#avatar-image_base64').files[0];
    if (!file) throw fieldError('image_base64', 'invalid_image');
    return new Promise(function (resolve, reject) {
      var reader = new window.FileReader();
      reader.onload = function () { resolve(String(reader.result).replace(/^data:[^,]*,/, '')); };
      reader.onerror = function () { reject(fieldError('image_base64', 'invalid_image')); };
      reader.readAsDataURL(file);
    }).then(function (base64) { return api('POST', '/profile/avatar', { image_base64: base64 }); })
      .then(function (answer) { showAvatar(answer.avatar_url); }, function (error) { error.details = { field: 'image_base64' }; throw error; });
  };

  function loadSecurity() {
    var t = labels.security;
    return Promise.all([api('GET', '/profile/security'), api('GET', '/identities')]).then(function (answers) {
      var summary = answers[0], identities = answers[1], status = $('#totp-state');
      status.textContent = summary.totp ? status.dataset.on : status.dataset.off;
      $('#totp-start').hidden = summary.totp;
      fillTable('passkeys-table', summary.passkeys.map(function (passkey) {
        return [passkey.name, timeEl(passkey.created_at), el('span', {}, [
          el('button', { type: 'button', 'data-passkey-rename': passkey.id, 'data-name': passkey.name, 'aria-label': t.rename + ' ' + passkey.name, text: t.rename }),
          el('button', { type: 'button', class: 'danger', 'data-passkey-remove': passkey.id, 'aria-label': t.remove + ' ' + passkey.name, text: t.remove }),
        ])];
      }));
      fillTable('identities-table', identities.map(function (identity) {
        return [identity.provider, identity.label, el('button', { type: 'button', class: 'danger', 'data-unlink': identity.id, 'aria-label': t.unlink + ' ' + identity.label, text: t.unlink })];
      }));
    });
  }
  function svgData(svg) { return 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg); }
  function startTotp(button) {
    return act(button, $('#action-error'), function () {
      return api('POST', '/auth/totp/enroll').then(function (answer) {
        $('#totp-secret').textContent = new URL(answer.uri).searchParams.get('secret') || '';
        return fetch(d.base + '/qr.svg', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: answer.uri }), credentials: 'same-origin' })
          .then(function (response) { return response.text(); })
          .then(function (svg) {
            $('#totp-qr').src = svgData(svg);
            $('#totp-setup').hidden = false;
            $('#totp-enroll').hidden = false;
            $('#totp-enroll-code').focus();
          });
      });
    });
  }
  actions.confirmTotp = function (fields) {
    return api('POST', '/auth/totp/verify', { code: fields.code, enroll: true }).then(function (answer) {
      $('#totp-setup').hidden = true;
      $('#recovery-codes').textContent = (answer.recovery_codes || []).join('\n');
      $('#recovery-box').hidden = false;
      return loadSecurity();
    }, codeError);
  };
  // WebAuthn through the browser's own JSON helpers: the options and the answer travel as the API's JSON.
  function passkeysSupported() { return window.PublicKeyCredential && window.PublicKeyCredential.parseCreationOptionsFromJSON; }
  function ceremonyError(error) { throw error instanceof ApiError ? error : new ApiError(0, 'invalid_passkey'); }
  actions.addPasskey = function (fields, form) {
    if (!passkeysSupported()) throw new ApiError(0, 'passkeys_unsupported');
    var body = { purpose: 'register' };
    if (fields.name) body.name = fields.name;
    return api('POST', '/auth/passkeys/begin', body).then(function (begun) {
      return navigator.credentials.create({ publicKey: window.PublicKeyCredential.parseCreationOptionsFromJSON(begun.options) })
        .then(function (credential) { return api('POST', '/auth/passkeys/finish/' + begun.id, { response: credential.toJSON() }); });
    }).then(function () { form.reset(); return loadSecurity(); }, ceremonyError);
  };
  function passkeyFactor(button) {
    return act(button, $('#passkey-error'), function () {
      if (!passkeysSupported()) throw new ApiError(0, 'passkeys_unsupported');
      return api('POST', '/auth/passkeys/begin', { purpose: 'authenticate' }).then(function (begun) {
        return navigator.credentials.get({ publicKey: window.PublicKeyCredential.parseRequestOptionsFromJSON(begun.options) })
          .then(function (credential) { return api('POST', '/auth/passkeys/finish/' + begun.id, { response: credential.toJSON() }); });
      }).then(function () { location.href = next(); }, ceremonyError);
    });
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button') : null;
    if (!button) return;
    var t = labels.security, errorBox = $('#action-error');
    if (button.id === 'totp-start') startTotp(button);
    else if (button.id === 'passkey-factor') passkeyFactor(button);
    else if (button.dataset.passkeyRename) {
      var name = window.prompt(t.passkeyName, button.dataset.name);
      if (name) act(button, errorBox, function () { return api('PATCH', '/auth/passkeys/' + button.dataset.passkeyRename, { name: name }).then(loadSecurity); });
    } else if (button.dataset.passkeyRemove) {
      if (window.confirm(t.removeConfirm)) act(button, errorBox, function () { return api('DELETE', '/auth/passkeys/' + button.dataset.passkeyRemove).then(loadSecurity); });
    } else if (button.dataset.unlink) {
      if (window.confirm(t.unlinkConfirm)) act(button, errorBox, function () { return api('DELETE', '/identities/' + button.dataset.unlink).then(loadSecurity); });
    }
  });

  // ---- start -------------------------------------------------------------------
  function needShop(run) {
    return function () {
      if (!state.shop) { var note = $('[data-no-shop]'); if (note) note.hidden = false; $$('form[data-write], [data-write]').forEach(function (node) { node.hidden = true; }); return null; }
      return run();
    };
  }
  var screens = {
    overview: function () { return loadNetworks().then(function () { var cards = $('#overview-cards'); state.shops.forEach(function (shop) { cards.appendChild(overviewCard(shop)); }); }); },
    shops: renderShops,
    shop: renderShop,
    invoices: needShop(function () { restoreFilters(); kindSwitch(); return loadNetworks().then(fillAssets).then(function () { restoreFilters(); return loadInvoices(false); }); }),
    invoice: needShop(function () { return loadNetworks().then(loadInvoice); }),
    payments: needShop(showPayments),
    keys: needShop(loadKeys),
    webhooks: needShop(loadWebhooks),
    deliveries: needShop(loadDeliveries),
    events: needShop(loadEvents),
    profile: loadProfile,
    security: loadSecurity,
    team: function () {
      $$('select[data-shops]').forEach(function (select) { state.shops.forEach(function (shop) { select.appendChild(el('option', { value: shop.id, text: shop.name })); }); });
      return loadTeam().catch(function (error) { $('#action-error').textContent = message(error); });
    },
  };
  var signedOut = ['sign-in', 'onboarding', 'invite'];
  if (signedOut.indexOf(d.screen) === -1) {
    loadContext().then(function () { return screens[d.screen] && screens[d.screen](); }).catch(function (error) {
      var main = $('#main');
      main.appendChild(el('p', { class: 'error', role: 'alert', text: message(error) }));
    });
  } else if (d.screen === 'sign-in' && !d.csrf) {
    $('#email-email').focus();
  }
})();
