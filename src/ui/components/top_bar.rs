use crate::ui::hooks::{use_action, use_dispatch};
use crate::ui::i18n::Lang;
use crate::ui::state::{Action, DetailsTab, Theme};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TopBarProps {
    pub theme: Theme,
    /// How many invariants are broken so far, shown on the Alarms link.
    pub alarms: usize,
}

/// The name, the links to the details below the stage, and the theme and
/// language switches.
#[function_component(TopBar)]
pub fn top_bar(props: &TopBarProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let dispatch = use_dispatch();
    let on_theme = use_action(|| Action::ToggleTheme);
    let on_language = use_action(|| Action::ToggleLanguage);
    let theme_label = match props.theme {
        Theme::Dark => t.theme_light,
        Theme::Light => t.theme_dark,
    };
    html! {
        <header class="top-bar">
            <div class="brand">
                <h1>{ "KafkaScope" }</h1>
                <p class="tagline">{ t.tagline }</p>
            </div>
            <nav class="details-links" aria-label="Details">
                { for DetailsTab::ALL.iter().map(|tab| {
                    let tab = *tab;
                    let onclick = {
                        let dispatch = dispatch.clone();
                        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::ShowDetails { tab, jump: true }))
                    };
                    let shown = super::details::short_title(t, tab);
                    let alarm = tab == DetailsTab::Alarms && props.alarms > 0;
                    html! {
                        <button type="button" class={classes!("link", alarm.then_some("alarm"))} {onclick}
                            aria-label={format!("Show {}", tab.name().to_ascii_lowercase())}>
                            { shown }
                            if tab == DetailsTab::Alarms && props.alarms > 0 {
                                <span class="badge">{ props.alarms }</span>
                            }
                        </button>
                    }
                }) }
            </nav>
            <div class="header-buttons">
                <button class="theme quiet" onclick={on_theme} aria-label="Theme">{ theme_label }</button>
                <button class="language quiet" onclick={on_language} aria-label="Language" title="English / 한국어">{ t.switch_language }</button>
            </div>
        </header>
    }
}
