#!/usr/bin/env python3
"""Writes resources/icons/*.svg: the console's icon set (24x24, stroke style, one accent colour
per meaning). Re-run after editing; the SVGs are committed and embedded via a Qt resource."""
import os

INK = "#37474f"      # neutral ink
BLUE = "#1565c0"     # running, actions
GREEN = "#2e7d32"    # ok
AMBER = "#e08e00"    # warning / limited
RED = "#c62828"      # failed / error
GREY = "#8d8d8d"     # offline / queued
BROWN = "#8d6e63"    # cancelled / lost


def svg(body, stroke=INK, width=1.8):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" '
            f'fill="none" stroke="{stroke}" stroke-width="{width}" stroke-linecap="round" '
            f'stroke-linejoin="round">{body}</svg>\n')


def dot(color):
    return svg(f'<circle cx="12" cy="12" r="6" fill="{color}" stroke="{color}"/>', color)


ICONS = {
    "runbox": svg(f'<rect x="3" y="5" width="18" height="14" rx="2.5" fill="{BLUE}" '
                  f'stroke="{BLUE}"/><path d="M7 10l3 2-3 2M12 15h5" stroke="#fff"/>', BLUE),
    "agent": svg('<rect x="4" y="4" width="16" height="6" rx="1.5"/><rect x="4" y="14" '
                 'width="16" height="6" rx="1.5"/><path d="M8 7h.01M8 17h.01"/>'),
    "agent-online": dot(GREEN),
    "agent-offline": svg(f'<circle cx="12" cy="12" r="5.5" stroke="{GREY}"/>', GREY),
    "agent-connecting": svg(f'<circle cx="12" cy="12" r="6" fill="{AMBER}" stroke="{AMBER}"/>'
                            '<path d="M12 9v3l2 1" stroke="#fff"/>', AMBER),
    "agent-error": svg(f'<circle cx="12" cy="12" r="6" fill="{RED}" stroke="{RED}"/>'
                       '<path d="M10 10l4 4M14 10l-4 4" stroke="#fff"/>', RED),
    "overview": svg('<rect x="3.5" y="3.5" width="7" height="7" rx="1.5"/><rect x="13.5" y="3.5" '
                    'width="7" height="7" rx="1.5"/><rect x="3.5" y="13.5" width="7" height="7" '
                    'rx="1.5"/><rect x="13.5" y="13.5" width="7" height="7" rx="1.5"/>', BLUE),
    "shield": svg('<path d="M12 3l7 3v5c0 4.5-3 8-7 10-4-2-7-5.5-7-10V6z"/>'
                  '<path d="M9 12l2 2 4-4"/>', GREEN),
    "network": svg('<circle cx="12" cy="12" r="8.5"/><path d="M3.5 12h17M12 3.5c2.5 2.5 3.5 5.5 '
                   '3.5 8.5s-1 6-3.5 8.5c-2.5-2.5-3.5-5.5-3.5-8.5s1-6 3.5-8.5z"/>', BLUE),
    "executions": svg('<path d="M8 6h12M8 12h12M8 18h12"/><path d="M4 6h.01M4 12h.01M4 18h.01"/>',
                      BLUE, 2.2),
    "chip": svg('<rect x="6" y="6" width="12" height="12" rx="1.5"/><rect x="9.5" y="9.5" '
                'width="5" height="5" rx=".5"/><path d="M9 3v3M12 3v3M15 3v3M9 18v3M12 18v3M15 '
                '18v3M3 9h3M3 12h3M3 15h3M18 9h3M18 12h3M18 15h3"/>', BLUE),
    "environment": svg('<path d="M9.5 3.5h5M10.5 3.5v5.5L5 18.5a1.5 1.5 0 0 0 1.3 2h11.4a1.5 1.5 0 '
                       '0 0 1.3-2L13.5 9V3.5"/><path d="M7.5 14.5h9"/>', GREEN),
    "workspace": svg('<path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 '
                     '0 1-2-2z"/>'),
    "quotas": svg('<path d="M4 19h16"/><rect x="5" y="11" width="3" height="6"/><rect x="10.5" '
                  'y="7" width="3" height="10"/><rect x="16" y="4" width="3" height="13"/>', BLUE),
    "state-completed": svg(f'<circle cx="12" cy="12" r="8.5" fill="{GREEN}" stroke="{GREEN}"/>'
                           '<path d="M8 12.5l2.6 2.5L16 9.5" stroke="#fff" stroke-width="2"/>', GREEN),
    "state-running": svg(f'<circle cx="12" cy="12" r="8.5" stroke="{BLUE}"/>'
                         f'<path d="M10 8.5l5 3.5-5 3.5z" fill="{BLUE}"/>', BLUE),
    "state-queued": svg(f'<circle cx="12" cy="12" r="8.5"/><path d="M12 7.5V12l3 2"/>', GREY),
    "state-cancelled": svg(f'<circle cx="12" cy="12" r="8.5"/><path d="M6 18L18 6"/>', BROWN),
    "state-limited": svg(f'<circle cx="12" cy="12" r="8.5" fill="{AMBER}" stroke="{AMBER}"/>'
                         '<path d="M12 7v6M12 16.5h.01" stroke="#fff" stroke-width="2.2"/>', AMBER),
    "state-failed": svg(f'<circle cx="12" cy="12" r="8.5" fill="{RED}" stroke="{RED}"/>'
                        '<path d="M9 9l6 6M15 9l-6 6" stroke="#fff" stroke-width="2"/>', RED),
    "warning": svg(f'<path d="M12 3.5l9 16H3z" fill="{AMBER}" stroke="{AMBER}"/>'
                   '<path d="M12 9.5v4.5M12 17h.01" stroke="#fff" stroke-width="2.2"/>', AMBER),
    "info": svg(f'<circle cx="12" cy="12" r="8.5"/><path d="M12 11v5.5M12 7.5h.01" '
                'stroke-width="2.2"/>', BLUE),
    "unavailable": svg('<circle cx="12" cy="12" r="8.5"/><path d="M6 6l12 12"/>', GREY),
    "apply": svg('<path d="M5 12.5l4.5 4.5L19 7.5"/>', GREEN, 2.2),
    "revert": svg('<path d="M9 14L4 9l5-5"/><path d="M4 9h10a6 6 0 0 1 0 12h-3"/>'),
    "add": svg('<path d="M12 5v14M5 12h14"/>', GREEN, 2.2),
    "remove": svg('<path d="M5 12h14"/>', RED, 2.2),
    "edit": svg('<path d="M4 20h4L19 9l-4-4L4 16z"/><path d="M13.5 6.5l4 4"/>'),
    "paste": svg('<rect x="5" y="4" width="14" height="17" rx="2"/><rect x="9" y="2.5" width="6" '
                 'height="3.5" rx="1"/><path d="M9 11h6M9 15h6"/>'),
    "refresh": svg('<path d="M20 11a8 8 0 0 0-14.3-4.9L4 8"/><path d="M4 3.5V8h4.5"/>'
                   '<path d="M4 13a8 8 0 0 0 14.3 4.9L20 16"/><path d="M20 20.5V16h-4.5"/>', BLUE),
    "run": svg(f'<path d="M7 4.5l12 7.5-12 7.5z" fill="{GREEN}"/>', GREEN),
    "cancel": svg(f'<rect x="5.5" y="5.5" width="13" height="13" rx="2" fill="{RED}"/>', RED),
    "pause": svg('<path d="M9 5v14M15 5v14"/>', INK, 2.6),
    "follow": svg('<path d="M12 4v13M6.5 11.5L12 17l5.5-5.5M5 20.5h14"/>', BLUE, 2),
    "find": svg('<circle cx="10.5" cy="10.5" r="6"/><path d="M15 15l5 5"/>', INK, 2),
    "save": svg('<path d="M5 4h11l3 3v13H5z"/><path d="M8 4v5h7V4M8 20v-6h8v6"/>'),
    "log": svg('<rect x="4" y="3.5" width="16" height="17" rx="2"/><path d="M8 8h8M8 12h8M8 16h5"/>'),
    "close": svg('<path d="M6 6l12 12M18 6L6 18"/>'),
    "arrow-up": svg('<path d="M6 15l6-6 6 6"/>', INK, 2),
    "arrow-down": svg('<path d="M6 9l6 6 6-6"/>', INK, 2),
    "eye": svg('<path d="M2.5 12S6 5.5 12 5.5 21.5 12 21.5 12 18 18.5 12 18.5 2.5 12 2.5 12z"/>'
               '<circle cx="12" cy="12" r="3"/>'),
    "connect": svg('<path d="M8 12h8"/><path d="M10 7H7a5 5 0 0 0 0 10h3M14 7h3a5 5 0 0 1 0 10h-3"/>',
                   GREEN),
    "disconnect": svg('<path d="M10 7H7a5 5 0 0 0 0 10h3M14 7h3a5 5 0 0 1 0 10h-3"/>'
                      '<path d="M12 4v3M12 17v3"/>', RED),
    "settings": svg('<circle cx="12" cy="12" r="3"/><path d="M12 2.5v3M12 18.5v3M2.5 12h3M18.5 '
                    '12h3M5.3 5.3l2.1 2.1M16.6 16.6l2.1 2.1M5.3 18.7l2.1-2.1M16.6 7.4l2.1-2.1"/>'),
}

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "resources", "icons")
os.makedirs(out, exist_ok=True)
for name, text in sorted(ICONS.items()):
    with open(os.path.join(out, name + ".svg"), "w") as f:
        f.write(text)
print(len(ICONS), "icons")
