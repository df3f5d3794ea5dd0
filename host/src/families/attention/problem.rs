//! One attention problem: softmax(Q·Kᵀ·scale + mask)·V for every batch and query head, its
//! shapes, the two memory layouts frameworks pass, the mask, and what it costs in FLOPs.

use common::attention::{Dims, Strides};

/// Where element (batch, head, row, column) of a Q, K, V or O tensor lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `[batch, heads, seq, head dim]`: each head's rows contiguous (PyTorch's SDPA argument
    /// order).
    Bhsd,
    /// `[batch, seq, heads, head dim]`: each token's heads contiguous (what a QKV projection
    /// writes, FlashAttention's own argument order).
    Bshd,
}

/// Which keys a query sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mask {
    None,
    /// Query `i` sees keys `j ≤ i + seq_k − seq_q`: the causal mask aligned at the bottom
    /// right, FlashAttention's convention (the last query sees every key, as in decoding with
    /// a cache). With `seq_q == seq_k` it is PyTorch's `is_causal`. When `seq_q > seq_k` the
    /// first `seq_q − seq_k` queries see no key: their output is 0 and their log-sum-exp −∞.
    Causal,
}

/// The shape of one forward pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    pub batch: usize,
    /// Query heads; a multiple of `heads_kv`.
    pub heads_q: usize,
    /// Key and value heads (grouped-query attention when fewer than `heads_q`): query head
    /// `h` reads key/value head `h / (heads_q / heads_kv)`.
    pub heads_kv: usize,
    pub seq_q: usize,
    pub seq_k: usize,
    pub head_dim: usize,
    pub layout: Layout,
    pub mask: Mask,
    /// The softmax scale when not 1/√(head dim): the tests sharpen the softmax with a larger
    /// one, so that the running maximum moves and the rescaling is exercised.
    pub softmax_scale: Option<f64>,
}

impl Problem {
    /// Why the shape cannot run, or `None`.
    pub fn invalid(&self) -> Option<String> {
        if self.heads_kv == 0 || !self.heads_q.is_multiple_of(self.heads_kv) {
            return Some(format!(
                "{} query heads are not a multiple of {} key/value heads",
                self.heads_q, self.heads_kv
            ));
        }
        if self.head_dim == 0 || self.batch == 0 || self.heads_q == 0 {
            return Some(format!(
                "batch {}, {} heads, head dim {}: none may be 0",
                self.batch, self.heads_q, self.head_dim
            ));
        }
        None
    }

    /// The softmax scale: 1/√(head dim) unless the problem says otherwise.
    pub fn scale(&self) -> f64 {
        self.softmax_scale.unwrap_or(1.0 / (self.head_dim as f64).sqrt())
    }

    /// The key/value head query head `head` reads.
    pub fn kv_head(&self, head: usize) -> usize {
        head / (self.heads_q / self.heads_kv)
    }

    /// The keys query row `row` sees: `0..end` (empty when masked out entirely).
    pub fn visible_keys(&self, row: usize) -> usize {
        match self.mask {
            Mask::None => self.seq_k,
            Mask::Causal => (row + 1 + self.seq_k).saturating_sub(self.seq_q).min(self.seq_k),
        }
    }

    /// The offset of element (batch `b`, head `h`, row `s`, column `d`) in a tensor of
    /// `heads` heads and `seq` rows.
    pub fn offset(&self, heads: usize, seq: usize, b: usize, h: usize, s: usize, d: usize) -> usize {
        let dim = self.head_dim;
        match self.layout {
            Layout::Bhsd => ((b * heads + h) * seq + s) * dim + d,
            Layout::Bshd => ((b * seq + s) * heads + h) * dim + d,
        }
    }

    /// Elements of Q (and of O).
    pub fn q_elements(&self) -> usize {
        self.batch * self.heads_q * self.seq_q * self.head_dim
    }

    /// Elements of K (and of V).
    pub fn kv_elements(&self) -> usize {
        self.batch * self.heads_kv * self.seq_k * self.head_dim
    }

    /// The FLOPs of the forward pass as FlashAttention's papers and PyTorch's benchmarks count
    /// them: two products of 2 · seq_q · seq_k · head dim per (batch, query head), halved under
    /// the causal mask (whatever the exact count of visible scores), so that figures compare.
    pub fn flops(&self) -> f64 {
        let full = 4.0
            * (self.batch * self.heads_q) as f64
            * (self.seq_q * self.seq_k) as f64
            * self.head_dim as f64;
        match self.mask {
            Mask::None => full,
            Mask::Causal => full / 2.0,
        }
    }
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Bhsd => "bhsd",
            Layout::Bshd => "bshd",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "bhsd" => Some(Layout::Bhsd),
            "bshd" => Some(Layout::Bshd),
            _ => None,
        }
    }
}

impl Mask {
    pub fn name(self) -> &'static str {
        match self {
            Mask::None => "none",
            Mask::Causal => "causal",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "none" => Some(Mask::None),
            "causal" => Some(Mask::Causal),
            _ => None,
        }
    }
}

impl Problem {
    /// The strides of a tensor of `heads` heads and `seq` rows in this layout.
    pub fn strides(&self, heads: usize, seq: usize) -> Strides {
        let (d, h, s) = (self.head_dim as u64, heads as u64, seq as u64);
        match self.layout {
            Layout::Bhsd => Strides { batch: h * s * d, head: s * d, row: d },
            Layout::Bshd => Strides { batch: s * h * d, head: d, row: h * d },
        }
    }

    /// The problem as the kernels read it. Sizes past 32 bits are refused by
    /// [`Problem::too_large`] before this is called.
    pub fn dims(&self) -> Dims {
        Dims {
            batch: self.batch as u32,
            heads_q: self.heads_q as u32,
            group: (self.heads_q / self.heads_kv) as u32,
            seq_q: self.seq_q as u32,
            seq_k: self.seq_k as u32,
            head_dim: self.head_dim as u32,
            causal: u32::from(self.mask == Mask::Causal),
            scale: self.scale() as f32,
            q: self.strides(self.heads_q, self.seq_q),
            k: self.strides(self.heads_kv, self.seq_k),
            v: self.strides(self.heads_kv, self.seq_k),
            o: self.strides(self.heads_q, self.seq_q),
        }
    }

    /// Why a dimension does not fit the kernels' 32-bit fields, or `None`.
    pub fn too_large(&self) -> Option<String> {
        let fields = [
            ("batch", self.batch),
            ("query heads", self.heads_q),
            ("query length", self.seq_q),
            ("key length", self.seq_k),
            ("head dim", self.head_dim),
        ];
        fields
            .iter()
            .find(|(_, v)| *v > u32::MAX as usize)
            .map(|(name, v)| format!("{name} {v} is past the kernels' 32-bit sizes"))
    }

    /// Rows of all (batch, query head) pairs: the outputs' rows and the log-sum-exps.
    pub fn rows(&self) -> usize {
        self.batch * self.heads_q * self.seq_q
    }

    /// The index of the log-sum-exp of row `row` of (batch `b`, query head `h`): rows of each
    /// (batch, head) contiguous, whatever the layout of the tensors.
    pub fn lse_index(&self, b: usize, h: usize, row: usize) -> usize {
        (b * self.heads_q + h) * self.seq_q + row
    }

    /// "16×16 heads (16 K/V), seq 1024×1024, head dim 128, causal, bshd".
    pub fn describe(&self) -> String {
        let kv =
            if self.heads_kv == self.heads_q { String::new() } else { format!(" ({} K/V)", self.heads_kv) };
        let keys = if self.seq_k == self.seq_q { String::new() } else { format!(" × {} keys", self.seq_k) };
        let scale = self.softmax_scale.map_or(String::new(), |s| format!(", scale {s}"));
        format!(
            "batch {} × {} heads{kv}, seq {}{keys}, head dim {}, {}, {}{scale}",
            self.batch,
            self.heads_q,
            self.seq_q,
            self.head_dim,
            self.mask.name(),
            self.layout.name()
        )
    }
}
