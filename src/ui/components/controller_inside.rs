use crate::sim::raft::state::RaftRole;
use crate::sim::view::ClusterView;
use crate::ui::i18n::{self, Lang};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControllerInsideProps {
    pub view: Rc<ClusterView>,
    pub controller: u32,
}

/// One controller's insides: its Raft role and what the role does, its
/// epoch and vote, its metadata log, and as the leader every voter's
/// progress (a record is committed once a majority has it), or as a
/// candidate the votes so far.
#[function_component(ControllerInside)]
pub fn controller_inside(props: &ControllerInsideProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let Some(q) = &props.view.quorum else {
        return html! {};
    };
    let Some(c) = q.controllers.iter().find(|c| c.id == props.controller) else {
        return html! {};
    };
    let id = c.id;
    let body = match &c.raft {
        None => html! {
            <p class="role-explained">{ i18n::controller_down(lang, c.log_end_offset) }</p>
        },
        Some(r) => {
            let hw = r.high_watermark.map_or_else(|| "–".to_string(), |h| h.to_string());
            let voted = r.voted_for.map_or_else(|| "–".to_string(), |v| v.to_string());
            let leo = r.log_end_offset.max(0);
            html! {
                <>
                    <p class="role-explained">{ i18n::raft_role_explained(lang, &r.role, c.active) }</p>
                    <dl class="facts">
                        <div><dt>{ t.epoch }</dt><dd>{ r.epoch }</dd></div>
                        <div><dt>{ t.voted_for }</dt><dd>{ voted }</dd></div>
                        <div><dt>{ t.metadata_log }</dt><dd>{ format!("LEO {} · HW {hw}", r.log_end_offset) }</dd></div>
                    </dl>
                    { match &r.role {
                        RaftRole::Leader { progress } => html! {
                            <ul class="progress" aria-label="Voters' progress">
                                { for progress.iter().map(|p| {
                                    let end = p.end_offset.unwrap_or(0).max(0);
                                    let width = if leo == 0 { 100 } else { end * 100 / leo };
                                    html! {
                                        <li>
                                            <span class="who">{ format!("{} {}", t.controller, p.id) }</span>
                                            <span class="bar" aria-hidden="true"><span class="bar-hw" style={format!("width: {width}%")}></span></span>
                                            <span class="offsets">{ p.end_offset.map_or_else(|| "?".to_string(), |o| format!("LEO {o}")) }</span>
                                        </li>
                                    }
                                }) }
                            </ul>
                        },
                        RaftRole::Candidate { votes, .. } | RaftRole::Prospective { votes } => html! {
                            <p class="votes">{ i18n::votes_line(lang, &votes.granted, &votes.rejected, q.majority) }</p>
                        },
                        _ => html! {},
                    } }
                </>
            }
        }
    };
    html! {
        <section class="controller-inside" role="region" aria-label={format!("Controller {id}")}>
            <h3 class="inside-title">{ format!("{} {id} · {}", t.controller, t.inside_word) }</h3>
            { body }
        </section>
    }
}
