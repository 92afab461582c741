"""The default risk limits τ, declared once for the library, the command line and scenario files.

There are two because they limit two different measures (docs/reference/defaults.md):

``LINKAGE_TAU`` = 0.5 limits the disclosure risk P_γ of a cell after a mass linkage attack (hit
rate × share of useful values), the handbook's setting for the scientific-use files it assessed
(γ = 0.10, τ = 0.50). The attack links every record of the intruder's file, so the figure is the
observed share in this release, and the verdict compares that point estimate with τ, as the
handbook does; a cell whose upper 95% bound reaches τ is flagged.

``SYNTHETIC_TAU`` = 0.1 limits the success of the attacks on a synthetic release (singling out,
linkability, inference as advantage over the baseline, membership inference). No source sets a
limit for these; 0.1 is this project's proposal. The rates are estimated from a random sample of
targets whose size the user chooses, so the verdict compares the upper 95% bound with τ: fewer
attacks can never make a release pass.
"""

LINKAGE_TAU = 0.5
SYNTHETIC_TAU = 0.1
