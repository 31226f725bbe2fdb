package main

import (
	"encoding/json"
	"math"
	"os"
	"time"
)

// The -json file: the machine, the settings, and per workload and strategy
// the status, the summary and every sample.

type jsonReport struct {
	Machine   Machine        `json:"machine"`
	Config    jsonConfig     `json:"config"`
	Started   time.Time      `json:"started"`
	ElapsedS  float64        `json:"elapsed_s"`
	Abandoned int            `json:"abandoned_goroutines"`
	Wrong     int            `json:"wrong"`
	Workloads []jsonWorkload `json:"workloads"`
}

type jsonConfig struct {
	Mode        string   `json:"mode"`
	Rounds      int      `json:"rounds"`
	P           int      `json:"p"`
	TimeoutS    float64  `json:"timeout_s"`
	RunLimitS   float64  `json:"run_limit_s"`
	CellBudgetS float64  `json:"cell_budget_s"`
	MinSampleS  float64  `json:"min_sample_s"`
	Workloads   []string `json:"workloads,omitempty"`
	Strategies  []string `json:"strategies,omitempty"`
}

type jsonWorkload struct {
	ID      string     `json:"id"`
	Label   string     `json:"label"`
	Unit    string     `json:"unit,omitempty"`
	Units   float64    `json:"units"`
	Nesting string     `json:"nesting,omitempty"`
	Skipped string     `json:"skipped,omitempty"`
	Elapsed float64    `json:"elapsed_s"`
	Results []jsonCell `json:"results"`
}

type jsonCell struct {
	Strategy     string       `json:"strategy"`
	Family       string       `json:"family"`
	Status       string       `json:"status"`
	Note         string       `json:"note,omitempty"`
	MedianNs     float64      `json:"median_ns,omitempty"`
	PerUnitNs    float64      `json:"per_unit_ns,omitempty"`
	RatioSeq     float64      `json:"ratio_sequential,omitempty"`
	RatioBestAlt float64      `json:"ratio_best_alternative,omitempty"`
	AllocsPerRun float64      `json:"allocs_per_run"`
	Reps         int          `json:"reps_per_sample,omitempty"`
	ProbeNs      float64      `json:"probe_ns,omitempty"`
	EstimateNs   float64      `json:"estimate_ns,omitempty"`
	CheckNs      float64      `json:"check_ns,omitempty"`
	Cutoff       int          `json:"cutoff,omitempty"`
	Sweep        []SweepPoint `json:"sweep,omitempty"`
	Samples      []Sample     `json:"samples,omitempty"`
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func toJSON(rep *Report) jsonReport {
	c := rep.Config
	jr := jsonReport{
		Machine: rep.Machine,
		Config: jsonConfig{Mode: c.Mode, Rounds: c.Rounds, P: c.P, TimeoutS: c.Timeout.Seconds(),
			RunLimitS: c.RunLimit.Seconds(), CellBudgetS: c.CellBudget.Seconds(), MinSampleS: c.MinSample.Seconds(),
			Workloads: c.Workloads, Strategies: c.Strategies},
		Started: rep.Started, ElapsedS: rep.Elapsed.Seconds(), Abandoned: rep.Abandoned, Wrong: rep.Wrong,
	}
	for _, wr := range rep.Results {
		w := wr.Workload
		jw := jsonWorkload{ID: w.ID, Label: w.Label, Unit: w.UnitName, Units: wr.Units, Nesting: w.Nesting,
			Skipped: wr.Skipped, Elapsed: wr.Elapsed.Seconds(), Results: []jsonCell{}}
		for _, cl := range wr.Cells {
			jc := jsonCell{Strategy: cl.Strategy.Name, Family: cl.Strategy.Family, Status: cl.Status, Note: cl.Note,
				MedianNs: finite(cl.Median), RatioSeq: finite(cl.RatioSeq), RatioBestAlt: finite(cl.RatioBest),
				AllocsPerRun: finite(cl.Allocs), Reps: cl.Reps, ProbeNs: finite(cl.ProbeNs),
				EstimateNs: finite(cl.EstimateNs), CheckNs: finite(cl.CheckNs), Cutoff: cl.Cutoff,
				Sweep: cl.Sweep, Samples: cl.Samples}
			if w.UnitName != "" && wr.Units > 0 && cl.Status == statusOK {
				jc.PerUnitNs = cl.Median / wr.Units
			}
			jw.Results = append(jw.Results, jc)
		}
		jr.Workloads = append(jr.Workloads, jw)
	}
	return jr
}

func writeJSON(path string, rep *Report) error {
	b, err := json.MarshalIndent(toJSON(rep), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
