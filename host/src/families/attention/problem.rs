//! One attention problem: softmax(Q·Kᵀ·scale + mask)·V for every batch and query head, its
//! shapes, the two memory layouts frameworks pass, the mask, and what it costs in FLOPs.

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}

impl Problem {
    /// Why the shape cannot run, or `None`.
    pub fn invalid(&self) -> Option<String> {
        if self.heads_kv == 0 || self.heads_q % self.heads_kv != 0 {
            return Some(format!(
                "{} query heads are not a multiple of {} key/value heads",
                self.heads_q, self.heads_kv
            ));
        }
        if self.head_dim == 0 {
            return Some("head dim 0".into());
        }
        None
    }

    /// The softmax scale, 1/√(head dim).
    pub fn scale(&self) -> f64 {
        1.0 / (self.head_dim as f64).sqrt()
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
