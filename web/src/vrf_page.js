// vrf_page.js -- the page's part for scheme fairshuf-vrf-1 (vrf.js): one hand
// from a link (?scheme=fairshuf-vrf-1&public_key=HEX&record=JSON), a whole
// vrf log pasted with the dealer's public key, and what a vrf hand proves in
// plain words.  main.js hands it its drawing helpers (installVrf).
import * as V from './vrf.js';

// What a vrf hand proves and what it does not (docs/provably-fair.md, "What
// a vrf hand proves, and what it does not").
const PROVES = [
  'This deal is the one and only deal the dealer\'s key can give for this table, hand number and ' +
    'players\' seeds: the dealer could not pick it, change it, or deal it again differently.',
  'You can check it the moment the hand ends, with the dealer\'s public key alone: no seed has to ' +
    'be revealed later.',
  'The cards come from an exact, unbiased shuffle (the same as fairshuf-pf-2\'s).',
];
const PROVES_LOG = 'With the whole log: no hand was skipped, dealt twice or dealt on seeds other than the ' +
  'ones the players committed to, and every voided hand is shown.';
const NOT = [
  'It does not stop players from colluding (sharing their cards outside the game).',
  'It does not stop the dealer from telling someone the other hands: the dealer can compute them.',
  'It says nothing about play after the deal (bets, payouts).',
  'It is only as good as the public key: compare it with the one the dealer publishes.',
];

export function installVrf(ui) {
  const { el, $ } = ui;

  // The dealer's key, beside the log (a vrf log is checked against it).
  const keyBox = el('label', { class: 'vrf-key', for: 'vrf-public-key' },
    'The dealer\'s public key (for ' + V.SCHEME + ' logs: 64 hex digits, as the dealer publishes it)',
    el('input', { id: 'vrf-public-key', spellcheck: 'false', placeholder: '64 hex digits' }));
  const go = $('form-log').querySelector('button.go');
  $('form-log').insertBefore(keyBox, go);

  const isVrfLog = (text) => {
    const first = text.split('\n').find((l) => l.trim() !== '');
    return first !== undefined && first.includes(`"${V.SCHEME}"`);
  };

  async function checkLog(text) {
    const pk = $('vrf-public-key').value.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(pk))
      throw new Error(`a ${V.SCHEME} log is checked against the dealer's public key: give it (64 hex digits)`);
    return V.checkVrfLog(text, pk);
  }

  function meaning(withLog) {
    return el('section', { class: 'period vrf-meaning' },
      el('h2', { text: 'What a vrf hand proves' }),
      el('ul', {}, ...PROVES.map((t) => el('li', { text: t })), withLog ? el('li', { text: PROVES_LOG }) : null),
      el('h2', { text: 'What it does not prove' }),
      el('ul', {}, ...NOT.map((t) => el('li', { text: t }))));
  }

  function handEl(h) {
    const r = h.rec;
    const verdict = h.verdict || (h.rule ? 'dishonest' : 'honest');
    const box = el('div', { class: 'deal', 'data-hand': String(r.hand), 'data-verdict': verdict },
      el('div', { class: 'head' }, el('strong', { text: `${r.event === 'void' ? 'void hand' : 'hand'} ${r.hand}` }),
        ui.badge(verdict, h.rule ? `${ui.word(verdict)}: ${h.rule}` : undefined),
        h.line ? el('span', { class: 'note', text: `line ${h.line}` }) : null));
    const parts = h.computed ? h.computed.parts : null;
    box.append(ui.partsEl(parts || ui.partsOfTsv(r.deal, r.game, r.players), r.game));
    if (!parts) box.append(el('div', { class: 'note', text: 'as the record states it (not from a valid proof)' }));
    return box;
  }

  function showOne(r) {
    const kids = [];
    if (r.rec) {
      const rec = r.rec;
      const sec = el('section', { class: 'period', 'data-verdict': r.verdict },
        el('h2', {}, `${rec.table}, hand ${rec.hand}`, ui.badge(r.verdict, r.rule ? `${ui.word(r.verdict)}: ${r.rule}` : undefined),
          el('span', { class: 'meta', text: `${rec.game} · ${rec.players} players · ${rec.decks} deck${rec.decks === 1 ? '' : 's'} · ` +
            `client seeds ${rec.clientSeeds.map((s) => JSON.stringify(s)).join(', ')} · ${V.SCHEME}` })),
        el('div', { class: 'kv', style: 'padding:4px 12px 0' }, `public key ${r.publicKey}`),
        el('div', { class: 'kv', style: 'padding:0 12px' }, `pi ${rec.pi}`));
      sec.append(handEl({ rec, rule: r.rule, computed: r.computed }));
      kids.push(sec);
    }
    kids.push(meaning(false));
    $('results').replaceChildren(...kids);
  }

  function showLog(r) {
    const summary = el('p', { class: 'summary', text:
      `${r.lines} line${r.lines === 1 ? '' : 's'}, ${r.tables.length} table${r.tables.length === 1 ? '' : 's'}, ` +
      `${r.nhands} hand${r.nhands === 1 ? '' : 's'} and ${r.voids} void hand${r.voids === 1 ? '' : 's'}, ${r.proven} proven.` });
    const secs = r.tables.map((t) => {
      const sec = el('section', { class: 'period' },
        el('h2', {}, `Table ${t.rec.table}`, el('span', { class: 'meta', text:
          `line ${t.line} · ${t.rec.game}, ${t.rec.players} players, ${t.rec.decks} deck${t.rec.decks === 1 ? '' : 's'} · ` +
          `${t.rec.commitments.length} committed seed${t.rec.commitments.length === 1 ? '' : 's'} · ${t.hands.length} hands` })));
      for (const h of t.hands.slice(0, 200)) sec.append(handEl(h));
      return sec;
    });
    $('results').replaceChildren(summary, ui.findingsEl(r) || '', ...secs, meaning(true));
  }

  return {
    isVrfLog,
    checkLog,
    show(r) { if (r.mode === 'vrf-one') showOne(r); else showLog(r); },
    // A link for one hand: true when it took the page.
    start(q) {
      if (q.get('scheme') !== V.SCHEME) return false;
      $('inputs').open = !q.has('record');
      const pk = (q.get('public_key') || '').trim().toLowerCase();
      $('vrf-public-key').value = pk;
      if (!q.has('record')) return true;
      ui.run(async () => {
        if (!/^[0-9a-f]{64}$/.test(pk)) throw new Error('public_key must be the dealer\'s public key, 64 hex digits');
        return V.checkVrfRecord(q.get('record'), pk);
      });
      return true;
    },
  };
}
