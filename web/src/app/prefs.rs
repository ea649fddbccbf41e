//! The reader's display choices, remembered in localStorage: the colour
//! theme (auto follows the system; or light, or dark) and times in UTC
//! instead of their own zone.

use leptos::prelude::*;

use super::Viewer;

const THEME_KEY: &str = "retrace-theme";
const UTC_KEY: &str = "retrace-utc";

/// The themes in the order the switch goes through them.
const THEMES: [&str; 3] = ["auto", "light", "dark"];

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok()?
}

fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

/// Sets `data-theme` on the root element, which the stylesheet's
/// `color-scheme` follows (none: the system's).
fn apply(theme: &str) {
    if let Some(root) = document().document_element() {
        let _ = match theme {
            "light" | "dark" => root.set_attribute("data-theme", theme),
            _ => root.remove_attribute("data-theme"),
        };
    }
}

/// Reads the remembered choices (at start, before the first paint).
pub fn restore(v: Viewer) {
    let (theme, utc) = current();
    apply(&theme);
    v.utc.set(utc);
}

/// The theme and whether times are in UTC, as remembered.
pub fn current() -> (String, bool) {
    let theme = load(THEME_KEY)
        .filter(|t| THEMES.contains(&t.as_str()))
        .unwrap_or_else(|| "auto".to_owned());
    (theme, load(UTC_KEY).as_deref() == Some("1"))
}

/// The theme switch: auto → light → dark → auto.
pub fn next_theme(button: &web_sys::Element) {
    let at = THEMES.iter().position(|t| *t == current().0);
    let t = THEMES[at.map_or(0, |i| (i + 1) % THEMES.len())];
    save(THEME_KEY, t);
    apply(t);
    button.set_text_content(Some(&format!("Theme: {t}")));
}

/// The UTC switch.
pub fn toggle_utc(v: Viewer, button: &web_sys::Element) {
    let on = !v.utc.get_untracked();
    v.utc.set(on);
    save(UTC_KEY, if on { "1" } else { "0" });
    let _ = button.set_attribute("aria-pressed", if on { "true" } else { "false" });
}
