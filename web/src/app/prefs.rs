//! The reader's display choices, remembered in localStorage: the colour
//! theme (auto follows the system; or light, or dark) and times in UTC
//! instead of their own zone.

use leptos::prelude::*;

use super::{viewer, Viewer};

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
    apply(load(THEME_KEY).as_deref().unwrap_or("auto"));
    v.utc.set(load(UTC_KEY).as_deref() == Some("1"));
}

#[component]
pub fn Switches() -> impl IntoView {
    let v = viewer();
    let theme = RwSignal::new(
        load(THEME_KEY)
            .filter(|t| THEMES.contains(&t.as_str()))
            .unwrap_or_else(|| "auto".to_owned()),
    );
    let next = move || {
        let at = THEMES.iter().position(|t| *t == theme.get_untracked());
        let t = THEMES[at.map_or(0, |i| (i + 1) % THEMES.len())];
        theme.set(t.to_owned());
        save(THEME_KEY, t);
        apply(t);
    };
    view! {
        <button
            id="theme"
            class="theme-switch"
            title="Colour theme: auto (the system's), light or dark"
            on:click=move |_| next()
        >{move || format!("Theme: {}", theme.get())}</button>
        <button
            id="utc"
            title="Show times in UTC instead of your time zone"
            aria-pressed=move || v.utc.get().to_string()
            on:click=move |_| {
                let on = !v.utc.get_untracked();
                v.utc.set(on);
                save(UTC_KEY, if on { "1" } else { "0" });
            }
        >"UTC"</button>
    }
}
