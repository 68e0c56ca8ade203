//! tokio-util `Decoder`/`Encoder` adapters over the framing layer (feature `codec`).
