//! Trace records as Arrow record batches, decoded on a thread of their own.
//!
//! The trace crate's readers are not `Send`, while a `pyarrow.RecordBatchReader` may be
//! pulled from any thread: so the reader lives on its own thread and hands over finished
//! batches, which also lets decoding run while Python consumes the previous batch.

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int8Builder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, DictionaryArray, RecordBatch, RecordBatchReader, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use trace::{Record, TraceError};

/// The rows a batch holds unless the caller asks otherwise (about 3 MiB of columns).
pub const DEFAULT_BATCH: usize = 64 * 1024;

/// The columns of a trace table: `trace::Record`'s fields, in bytes and nanoseconds.
pub fn schema() -> SchemaRef {
    let op = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8));
    Arc::new(Schema::new(vec![
        Field::new("op", op, false),
        Field::new("offset_bytes", DataType::UInt64, false),
        Field::new("len_bytes", DataType::UInt32, false),
        Field::new("queue_ns", DataType::UInt64, true),
        Field::new("issue_ns", DataType::UInt64, true),
        Field::new("complete_ns", DataType::UInt64, true),
        Field::new("stream", DataType::UInt32, false),
        Field::new("merged", DataType::Boolean, false),
    ]))
}

/// The records of one batch, column by column.
struct Columns {
    op: Int8Builder,
    offset: UInt64Builder,
    len: UInt32Builder,
    queue: UInt64Builder,
    issue: UInt64Builder,
    complete: UInt64Builder,
    stream: UInt32Builder,
    merged: BooleanBuilder,
}

impl Columns {
    fn new(n: usize) -> Self {
        Columns {
            op: Int8Builder::with_capacity(n),
            offset: UInt64Builder::with_capacity(n),
            len: UInt32Builder::with_capacity(n),
            queue: UInt64Builder::with_capacity(n),
            issue: UInt64Builder::with_capacity(n),
            complete: UInt64Builder::with_capacity(n),
            stream: UInt32Builder::with_capacity(n),
            merged: BooleanBuilder::with_capacity(n),
        }
    }

    fn push(&mut self, r: &Record) {
        // The dictionary is `engine::Op::ALL`'s names, so the key is the op's index.
        self.op.append_value(r.op.index() as i8);
        self.offset.append_value(r.offset_bytes);
        self.len.append_value(r.len_bytes);
        self.queue.append_option(r.queue_ns);
        self.issue.append_option(r.issue_ns);
        self.complete.append_option(r.complete_ns);
        self.stream.append_value(r.stream);
        self.merged.append_value(r.merged);
    }

    fn finish(&mut self, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
        let names = StringArray::from_iter_values(engine::Op::ALL.iter().map(|o| o.name()));
        let op = DictionaryArray::try_new(self.op.finish(), Arc::new(names))?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(op),
            Arc::new(self.offset.finish()),
            Arc::new(self.len.finish()),
            Arc::new(self.queue.finish()),
            Arc::new(self.issue.finish()),
            Arc::new(self.complete.finish()),
            Arc::new(self.stream.finish()),
            Arc::new(self.merged.finish()),
        ];
        RecordBatch::try_new(schema.clone(), columns)
    }
}

/// A source of records, opened on the reading thread.
pub type Source = Box<dyn Iterator<Item = Result<Record, TraceError>>>;

/// Batches of a trace's records, read on their own thread.
pub struct Batches {
    schema: SchemaRef,
    rx: Receiver<Result<RecordBatch, ArrowError>>,
}

impl Batches {
    /// Start reading: `open` runs on the reading thread; its error (a missing file, an
    /// unknown format) is returned here, before any batch.
    pub fn start<F>(open: F, batch_rows: usize) -> Result<Batches, TraceError>
    where
        F: FnOnce() -> Result<Source, TraceError> + Send + 'static,
    {
        let schema = schema();
        let (opened_tx, opened_rx) = sync_channel::<Result<(), TraceError>>(1);
        // Two batches ahead: decoding overlaps the consumer without holding the trace.
        let (tx, rx) = sync_channel(2);
        let thread_schema = schema.clone();
        std::thread::Builder::new()
            .name("ssdlab-trace-reader".into())
            .spawn(move || {
                let records = match open() {
                    Ok(r) => {
                        let _ = opened_tx.send(Ok(()));
                        r
                    }
                    Err(e) => {
                        let _ = opened_tx.send(Err(e));
                        return;
                    }
                };
                let mut cols = Columns::new(batch_rows);
                let mut rows = 0;
                for r in records {
                    match r {
                        Ok(r) => {
                            cols.push(&r);
                            rows += 1;
                            if rows == batch_rows {
                                rows = 0;
                                // A consumer that went away ends the reading.
                                if tx.send(cols.finish(&thread_schema)).is_err() {
                                    return;
                                }
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(ArrowError::ExternalError(Box::new(e))));
                            return;
                        }
                    }
                }
                if rows > 0 {
                    let _ = tx.send(cols.finish(&thread_schema));
                }
            })
            .map_err(|e| TraceError::Format(format!("cannot start a reading thread: {e}")))?;
        match opened_rx.recv() {
            Ok(Ok(())) => Ok(Batches { schema, rx }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(TraceError::Format("the trace reader stopped".into())),
        }
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        // The sender is dropped when the trace ends (or after an error it sent).
        self.rx.recv().ok()
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// The message of an error that came through a batch: the trace crate's own when it was one.
pub fn error_message(e: &ArrowError) -> String {
    match e {
        ArrowError::ExternalError(inner) => inner.to_string(),
        other => other.to_string(),
    }
}
