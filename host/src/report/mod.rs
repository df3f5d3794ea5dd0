//! What a run shows and keeps: tables for the terminal, records (JSON, CSV) and their
//! comparison (`host compare`), SVG charts, and the output that writes each as it comes.
//! Uses `base` and `measure`.

pub mod compare;
pub mod heatmap;
pub mod output;
pub mod plot;
pub mod records;
pub mod table;
