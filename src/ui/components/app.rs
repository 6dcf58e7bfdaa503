use super::{Details, Dock, FollowPanel, Narration, Stage, TopBar, Transport};
use crate::ui::follow;
use crate::ui::hooks;
use crate::ui::i18n::{self, Lang};
use crate::ui::narration::{self, NarrationLine};
use crate::ui::state::Dispatch;
use crate::ui::contexts::{Clock, FollowContext};
use crate::ui::Shared;
use std::rc::Rc;
use yew::prelude::*;

/// How far back the stage looks for the learner's last request: a quiet
/// run's trace grows long, and a render must stay cheap.
const RECENT_SCAN: usize = 20_000;

/// The whole page: the top bar, the stage with the narration beside it, the
/// details below, and the transport bar that never scrolls away.
#[function_component(App)]
pub fn app() -> Html {
    let state = hooks::use_app_state();
    let dispatch: Dispatch = state.dispatcher();
    hooks::use_browser_sync(&state);
    hooks::use_global_listeners(dispatch.clone());
    hooks::use_play(dispatch.clone(), state.playing);
    let narrow = hooks::use_narrow();

    let session = state.session.borrow();
    // One view per render, shared by every component that draws it.
    let view = Rc::new(session.view());
    let lang = state.lang;
    let t = lang.texts();
    let (events, tags) = session.position_events();
    let lines: Vec<NarrationLine> = narration::lines(lang, events, tags, state.focus);
    // Past the memory budget, with no old part of the timeline left to
    // drop, the session takes no new steps (ui::memory).
    let memory_full = session.memory_full();
    let trimmed = session.forgotten();
    let can_step = session.can_step();
    let can_step_back = session.can_step_back();
    let (timeline_len, timeline_index) = (session.timeline_len(), session.timeline_index());
    let violations = Rc::new(session.violations().to_vec());
    let recent = follow::last_learner_broker(session.sim().trace(), RECENT_SCAN);
    // Following: the request's own events, its stages on each broker, and
    // what released it from purgatory.
    let follow_data = state.followed.as_ref().map(|f| {
        let trace = session.sim().trace();
        let lines: Vec<String> = follow::events_of(trace, f.request)
            .into_iter()
            .map(|e| i18n::hop_line(lang, e.step, e.time_ms, &e.node.to_string(), &narration::sentence(lang, e)))
            .collect();
        (lines, follow::visited(trace, f.request), follow::release(trace, f.request), follow::finished(trace, f.request))
    });
    drop(session);
    let display_ms = state.display_ms();
    let status = state
        .frame
        .and_then(|f| i18n::play_status(lang, &f.showing, f.rate, crate::ui::state::SPEEDS[state.speed]))
        .or_else(|| state.last_step.as_ref().and_then(|r| i18n::step_report(lang, r, state.focus)));
    let visited = Rc::new(follow_data.as_ref().map(|d| d.1.clone()).unwrap_or_default());
    let follow_context = FollowContext {
        followed: state.followed.as_ref().map(|f| f.request),
        releasers: Rc::new(follow_data.as_ref().and_then(|d| d.2.as_ref()).map(|r| r.fetches.clone()).unwrap_or_default()),
    };
    let topics: Rc<Vec<(String, u32)>> = Rc::new(state.setup.topics.iter().map(|t| (t.name.clone(), t.partitions)).collect());

    html! {
        <ContextProvider<Lang> context={lang}>
        <ContextProvider<Dispatch> context={dispatch}>
        <ContextProvider<FollowContext> context={follow_context}>
        <ContextProvider<Clock> context={Clock(display_ms)}>
        <ContextProvider<Shared<crate::sim::view::ClusterView>> context={Shared(view.clone())}>
        <div class={classes!("app", state.playing.then_some("playing"), narrow.then_some("narrow"))} lang={lang.code()}>
            <TopBar theme={state.theme()} alarms={violations.len()} />
            if let Some(e) = &state.link_error {
                <p class="error link-error" role="alert">
                    { format!("{}: {}. {}", t.link_error_intro, i18n::link_error(lang, e), t.link_error_fallback) }
                </p>
            }
            <main class="workspace">
                <Stage view={view.clone()} selected={state.selected} visited={visited} narrow={narrow}
                    show_hint={!state.hint_used} now_ms={display_ms} status={status.clone()} {recent}
                    shortest_trip_ms={crate::ui::player::shortest_drawn_trip_ms(state.playing, state.frame.map_or(0.0, |f| f.rate))} />
                <aside class="side" aria-label="Actions and narration">
                    <Dock key={format!("dock-{}", state.generation)} open={state.dock} topics={topics}
                        setup={state.setup.clone()} setup_error={state.setup_error.clone()} share={state.share}
                        producers={view.producers.clone()} consumers={view.consumers.clone()} />
                    <Narration lines={Rc::new(lines)} error={state.error.clone().or_else(|| memory_full.then(|| t.memory_full.to_string())).or_else(|| trimmed.map(|(positions, ms)| crate::ui::i18n::timeline_trimmed(lang, positions, ms)))}
                        welcome={!state.hint_used} />
                    if let (Some(f), Some((lines, _, release, finished))) = (&state.followed, &follow_data) {
                        <FollowPanel followed={f.clone()} lines={lines.clone()}
                            release={release.as_ref().map(|r| i18n::released_by(lang, r))}
                            finished={*finished} stalled={state.follow_stalled} can_step={can_step} />
                    }
                </aside>
            </main>
            <Details tab={state.details} view={view.clone()} violations={violations}
                session={Shared(state.session.clone())} />
            <Transport playing={state.playing} speed={state.speed} {can_step} {can_step_back}
                {timeline_len} {timeline_index} step={view.step} time_ms={display_ms as u64}
                has_quorum={view.quorum.is_some()} focus={state.focus} />
        </div>
        </ContextProvider<Shared<crate::sim::view::ClusterView>>>
        </ContextProvider<Clock>>
        </ContextProvider<FollowContext>>
        </ContextProvider<Dispatch>>
        </ContextProvider<Lang>>
    }
}
