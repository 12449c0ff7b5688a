// Command k8scheck checks Kubernetes manifests offline, where no API server
// and no JSON schema download are at hand: every document is decoded
// strictly into its k8s.io/api type (an unknown or misspelt field, or a
// value of the wrong type, is an error), and the references between the
// objects are followed: selectors match pod labels, probes name declared
// ports, envFrom names a ConfigMap or Secret of the set, the HPA scales a
// Deployment of the set.
//
//	kubectl kustomize deploy/k8s | go run . -
//
// It is a module of its own, so the service's module does not depend on
// the Kubernetes API packages.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// kinds maps apiVersion/kind to a new object of its type.
var kinds = map[string]func() any{
	"v1/Namespace":                           func() any { return &corev1.Namespace{} },
	"v1/ConfigMap":                           func() any { return &corev1.ConfigMap{} },
	"v1/Secret":                              func() any { return &corev1.Secret{} },
	"v1/Service":                             func() any { return &corev1.Service{} },
	"apps/v1/Deployment":                     func() any { return &appsv1.Deployment{} },
	"batch/v1/Job":                           func() any { return &batchv1.Job{} },
	"autoscaling/v2/HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"policy/v1/PodDisruptionBudget":          func() any { return &policyv1.PodDisruptionBudget{} },
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck FILE.yaml | -")
		os.Exit(2)
	}
	in := io.Reader(os.Stdin)
	if os.Args[1] != "-" {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "k8scheck:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	objects, err := decodeAll(in)
	if err == nil {
		err = checkReferences(objects)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8scheck:", err)
		os.Exit(1)
	}
	fmt.Printf("k8scheck: %d objects decoded strictly, references consistent\n", len(objects))
}

// decodeAll splits a multi-document YAML stream and decodes each document.
func decodeAll(r io.Reader) ([]any, error) {
	var docs [][]byte
	var cur bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.TrimRight(sc.Text(), " ") == "---" {
			docs, cur = append(docs, bytes.Clone(cur.Bytes())), bytes.Buffer{}
			continue
		}
		cur.WriteString(sc.Text() + "\n")
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	docs = append(docs, cur.Bytes())
	var objects []any
	for i, doc := range docs {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		newObject, ok := kinds[head.APIVersion+"/"+head.Kind]
		if !ok {
			return nil, fmt.Errorf("document %d: %s %s is not a kind this check knows", i+1, head.APIVersion, head.Kind)
		}
		obj := newObject()
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i+1, head.Kind, err)
		}
		objects = append(objects, obj)
	}
	if len(objects) == 0 {
		return nil, errors.New("no objects")
	}
	return objects, nil
}

// checkReferences follows the references between the objects.
func checkReferences(objects []any) error {
	configMaps, secrets, deployments := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var pods []labels.Set
	for _, o := range objects {
		switch o := o.(type) {
		case *corev1.ConfigMap:
			configMaps[o.Name] = true
		case *corev1.Secret:
			secrets[o.Name] = true
		case *appsv1.Deployment:
			deployments[o.Name] = true
			pods = append(pods, o.Spec.Template.Labels)
		case *batchv1.Job:
			pods = append(pods, o.Spec.Template.Labels)
		}
	}
	for _, o := range objects {
		var err error
		switch o := o.(type) {
		case *appsv1.Deployment:
			err = checkPodTemplate("Deployment "+o.Name, o.Spec.Selector.MatchLabels, o.Spec.Template, configMaps, secrets)
		case *batchv1.Job:
			err = checkPodTemplate("Job "+o.Name, nil, o.Spec.Template, configMaps, secrets)
		case *corev1.Service:
			err = selects("Service "+o.Name, o.Spec.Selector, pods)
		case *policyv1.PodDisruptionBudget:
			err = selects("PodDisruptionBudget "+o.Name, o.Spec.Selector.MatchLabels, pods)
		case *autoscalingv2.HorizontalPodAutoscaler:
			if t := o.Spec.ScaleTargetRef; t.Kind != "Deployment" || !deployments[t.Name] {
				err = fmt.Errorf("HorizontalPodAutoscaler %s scales %s %s, not a Deployment of the set", o.Name, t.Kind, t.Name)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkPodTemplate checks a pod template against its selector, its
// probes against its ports and its envFrom against the set.
func checkPodTemplate(what string, selector map[string]string, t corev1.PodTemplateSpec, configMaps, secrets map[string]bool) error {
	if selector != nil && !labels.SelectorFromSet(selector).Matches(labels.Set(t.Labels)) {
		return fmt.Errorf("%s: the selector does not match the pod template's labels", what)
	}
	for _, c := range t.Spec.Containers {
		ports := map[string]bool{}
		for _, p := range c.Ports {
			ports[p.Name] = true
		}
		for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
			if probe != nil && probe.HTTPGet != nil && probe.HTTPGet.Port.StrVal != "" && !ports[probe.HTTPGet.Port.StrVal] {
				return fmt.Errorf("%s: a probe names port %q, which container %s does not declare", what, probe.HTTPGet.Port.StrVal, c.Name)
			}
		}
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil && !configMaps[e.ConfigMapRef.Name] {
				return fmt.Errorf("%s: envFrom names ConfigMap %s, not in the set", what, e.ConfigMapRef.Name)
			}
			if e.SecretRef != nil && !secrets[e.SecretRef.Name] {
				return fmt.Errorf("%s: envFrom names Secret %s, not in the set", what, e.SecretRef.Name)
			}
		}
	}
	return nil
}

// selects checks that selector matches the labels of some pod template.
func selects(what string, selector map[string]string, pods []labels.Set) error {
	for _, p := range pods {
		if len(selector) > 0 && labels.SelectorFromSet(selector).Matches(p) {
			return nil
		}
	}
	return fmt.Errorf("%s: the selector matches no pod template of the set", what)
}
