/**
 * The console's one script, served at /console/console.js (no framework, no build). It shows
 * every `<time datetime>` in the browser's time zone, and every few seconds replaces each
 * `[data-live]` element's content with the fragment its URL answers (server-rendered, escaped
 * markup of this console), so the page follows the daemon without a reload. Hidden tabs do not
 * poll. Without it the pages still work: times stay in UTC and a reload refreshes.
 */
export const CONSOLE_JS = `
(function () {
  'use strict';
  var full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  var thisYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit' });
  var clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

  // Today's times as a clock, this year's without the year: tables stay narrow.
  function when(date) {
    var now = new Date();
    if (date.toDateString() === now.toDateString()) return clock.format(date);
    return date.getFullYear() === now.getFullYear() ? thisYear.format(date) : full.format(date);
  }
  var rel = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

  function relative(ms) {
    var s = Math.round(ms / 1000), a = Math.abs(s);
    if (a < 60) return rel.format(s, 'second');
    if (a < 3600) return rel.format(Math.round(s / 60), 'minute');
    if (a < 86400) return rel.format(Math.round(s / 3600), 'hour');
    return rel.format(Math.round(s / 86400), 'day');
  }

  function localTimes(root) {
    var times = root.querySelectorAll('time[datetime]');
    for (var i = 0; i < times.length; i++) {
      var el = times[i];
      var date = new Date(el.getAttribute('datetime'));
      if (isNaN(date.getTime())) continue;
      el.title = full.format(date) + ' (' + date.toISOString() + ')';
      el.textContent = when(date) + (el.hasAttribute('data-rel') ? ' (' + relative(date.getTime() - Date.now()) + ')' : '');
    }
  }

  var zone = document.getElementById('zone');
  if (zone) zone.textContent = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  localTimes(document);

  var live = document.querySelectorAll('[data-live]');
  var stamp = document.getElementById('updated');
  var every = Math.max(1, Number(document.body.getAttribute('data-refresh')) || 5) * 1000;
  var busy = false;

  function said(text, stale) {
    if (!stamp) return;
    stamp.textContent = text;
    stamp.className = stale ? 'stale' : '';
  }

  function refresh() {
    if (busy || document.hidden || live.length === 0) return;
    busy = true;
    var pending = [];
    for (var i = 0; i < live.length; i++) {
      (function (el) {
        pending.push(
          fetch(el.getAttribute('data-live'), { headers: { accept: 'text/html' }, cache: 'no-store', credentials: 'same-origin' })
            .then(function (response) {
              if (!response.ok) throw new Error('the console answered ' + response.status);
              return response.text();
            })
            .then(function (text) {
              el.innerHTML = text;
              localTimes(el);
            })
        );
      })(live[i]);
    }
    Promise.all(pending)
      .then(function () { said('· updated ' + clock.format(new Date()), false); })
      .catch(function (error) { said('· not updated: ' + (error && error.message ? error.message : 'the daemon does not answer') + '; retrying', true); })
      .then(function () { busy = false; });
  }

  if (live.length) {
    said('· updated ' + clock.format(new Date()), false);
    setInterval(refresh, every);
    document.addEventListener('visibilitychange', function () { if (!document.hidden) refresh(); });
  }
})();
`;
