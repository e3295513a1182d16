//! Tables: a header and rows of cells; numbers right-aligned. Cells are text (escaped by
//! the template) or markup built by a template.

use maud::{html, Markup, Render};

/// One cell.
pub enum Cell {
    Text(String),
    /// A figure, right-aligned.
    Num(String),
    Markup(Markup),
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<Markup> for Cell {
    fn from(m: Markup) -> Cell {
        Cell::Markup(m)
    }
}

/// A table under construction.
pub struct Table {
    head: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(head: &[&str]) -> Table {
        Table {
            head: head.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<Cell>) {
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl Render for Table {
    fn render(&self) -> Markup {
        html! {
            div.wide {
                table {
                    @if self.head.iter().any(|h| !h.is_empty()) {
                        tr { @for h in &self.head { th { (h) } } }
                    }
                    @for row in &self.rows {
                        tr {
                            @for cell in row {
                                @match cell {
                                    Cell::Text(t) => td { (t) },
                                    Cell::Num(t) => td.num { (t) },
                                    Cell::Markup(m) => td { (m) },
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
