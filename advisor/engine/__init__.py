"""The engine: memory, throughput and layout arithmetic for one training setup on one GPU type.

Pure functions over pydantic models; no I/O, no prices, no wording, nothing from market/, text/
or bot/, and neither the request nor the catalogue files: advisor/planning/engine_inputs.py
turns a request into the engine's inputs (a ModelShape and a TrainingSetup).
"""
