/// The web page `cards serve` sends: plain HTML, CSS and JavaScript in string literals, so the static
/// `cards` binary carries them and the page needs no build step and no network.
///
/// The HTML holds no card text: the script fills the page with `textContent` only, and the
/// Content-Security-Policy (DeckService) forbids inline scripts, so even text that became markup could
/// run nothing.
enum PageAssets {
    /// `/`: the shell of the page.
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
        <title>Cards</title>
        <link rel="stylesheet" href="app.css">
        <script src="app.js" defer></script>
        </head>
        <body>
        <header>
          <h1 id="deck-name">Cards</h1>
          <nav aria-label="Views">
            <button type="button" id="show-stack" aria-pressed="true">Stack</button>
            <button type="button" id="show-list" aria-pressed="false">List</button>
          </nav>
          <button type="button" id="undo" disabled>Undo (u)</button>
        </header>
        <main>
          <section id="stack-view" aria-label="Card stack">
            <p id="position" class="position"></p>
            <ul id="stack" class="stack" tabindex="0"
                aria-label="Stack of cards. Left arrow drags left, right arrow drags right, Enter releases, u undoes."></ul>
            <div class="stack-buttons">
              <button type="button" id="delete-top">Delete</button>
              <button type="button" id="keep-top">Keep</button>
            </div>
          </section>
          <section id="list-view" aria-label="Card list" hidden>
            <ul id="rows" class="rows"></ul>
          </section>
          <p id="status" class="status" role="status" aria-live="polite"></p>
        </main>
        </body>
        </html>

        """#

    /// `/app.css`.
    static let style = #"""
        :root { color-scheme: light dark; --bg: #f2f2f7; --fg: #1c1c1e; --card: #ffffff; --muted: #6c6c70; }
        @media (prefers-color-scheme: dark) { :root { --bg: #000; --fg: #f2f2f7; --card: #1c1c1e; --muted: #98989d; } }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--fg);
          font: 16px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        header { display: flex; align-items: center; gap: 12px; padding: 10px 16px; flex-wrap: wrap; }
        header h1 { font-size: 20px; margin: 0; flex: 1; overflow-wrap: anywhere; }
        button { font: inherit; padding: 8px 14px; border-radius: 10px; border: 1px solid #8886;
          background: var(--card); color: var(--fg); min-height: 44px; }
        button[aria-pressed="true"] { background: #0a84ff; color: white; border-color: #0a84ff; }
        button:disabled { opacity: 0.45; }
        main { padding: 0 16px 24px; }
        .position, .status { text-align: center; color: var(--muted); min-height: 1.4em; margin: 6px 0; }
        .stack { position: relative; list-style: none; margin: 8px auto; padding: 0;
          width: min(300px, 86vw); height: min(450px, 60vh); outline: none; }
        .stack:focus-visible { outline: 3px solid #0a84ff; outline-offset: 6px; border-radius: 22px; }
        .card { position: absolute; inset: 0; border-radius: 20px; background: var(--card);
          border: 6px solid var(--card-color, #8e8e93); box-shadow: 0 6px 18px #0003; padding: 22px;
          display: flex; flex-direction: column; gap: 10px; touch-action: none; user-select: none;
          -webkit-user-select: none; will-change: transform; cursor: grab; overflow: hidden; }
        .card.under { transform: translateY(10px) scale(0.96); filter: brightness(0.97); }
        .card.under2 { transform: translateY(20px) scale(0.92); filter: brightness(0.94); }
        .card .title { font-size: 28px; font-weight: 700; margin: 0; overflow-wrap: anywhere; }
        .card .platform, .row .platform { color: var(--muted); overflow-wrap: anywhere; }
        .card .icon, .row .icon { font-family: ui-monospace, monospace; font-size: 13px; color: var(--muted);
          overflow-wrap: anywhere; }
        .card .swatch { height: 56px; border-radius: 12px; background: var(--card-color, #8e8e93); }
        .card .link, .row .link { overflow-wrap: anywhere; }
        .unsafe-link { color: var(--muted); text-decoration: line-through; }
        .badge { position: absolute; top: 18px; padding: 4px 10px; border: 4px solid; border-radius: 10px;
          font-weight: 800; font-size: 22px; text-transform: uppercase; opacity: 0; pointer-events: none; }
        .badge.delete { right: 18px; color: #ff3b30; transform: rotate(12deg); }
        .badge.keep { left: 18px; color: #34c759; transform: rotate(-12deg); }
        .card.armed-left { border-color: #ff3b30; }
        .card.armed-left .badge.delete, .card.armed-right .badge.keep { opacity: 1; }
        .card.armed-right { border-color: #34c759; }
        .empty { position: absolute; inset: 0; display: grid; place-items: center; color: var(--muted);
          border: 2px dashed #8886; border-radius: 20px; }
        .stack-buttons { display: flex; justify-content: center; gap: 16px; margin-top: 28px; }
        .rows { list-style: none; margin: 0 auto; padding: 0; max-width: 560px; }
        .row { position: relative; overflow: hidden; border-radius: 12px; margin: 8px 0; background: #ff3b30; }
        .row .behind { position: absolute; inset: 0; display: flex; align-items: center; justify-content: flex-end;
          padding-right: 20px; color: white; font-weight: 700; }
        .row.armed .behind { background: #d70015; }
        .row .content { position: relative; background: var(--card); padding: 12px 14px;
          border-left: 8px solid var(--card-color, #8e8e93); touch-action: pan-y; user-select: none;
          -webkit-user-select: none; display: grid; grid-template-columns: 1fr auto; gap: 2px 10px;
          will-change: transform; }
        .row .title { font-weight: 650; font-size: 18px; overflow-wrap: anywhere; }
        .row .delete-button { grid-row: 1 / span 4; grid-column: 2; align-self: center; }
        .row .content > *:not(.delete-button) { grid-column: 1; }
        @media (hover: hover) { button:hover { filter: brightness(0.95); } }
        @media (prefers-reduced-motion: reduce) { .card, .row .content { transition: none !important; } }

        """#
}
