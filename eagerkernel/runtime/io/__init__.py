"""Reading and writing state: checkpoints (safetensors + a JSON object graph) and summaries."""
