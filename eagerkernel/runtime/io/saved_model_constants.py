"""`tf.saved_model`'s string constants: tag sets, signature keys and method names, and the
names of a TensorFlow SavedModel's files (follows TensorFlow 2.21's values exactly, so that
``signatures={tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: f}`` saves ``f`` as
``"serving_default"``, which ``loaded.signatures`` then holds).

The file names describe TensorFlow's format; this runtime's saved models are stored as
``saved_model.json`` and ``variables.safetensors`` (see `saved_model_format`).

>>> DEFAULT_SERVING_SIGNATURE_DEF_KEY, SERVING, PREDICT_METHOD_NAME
('serving_default', 'serve', 'tensorflow/serving/predict')
"""

from __future__ import annotations

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "GPU",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "SERVING",
    "TPU",
    "TRAINING",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
]

# Tag sets.
SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
# Signature keys and method names.
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
# TensorFlow's SavedModel directory layout.
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
