// DCMTK's dcmseg builds and writes the Segmentation object; this file only
// translates SegPlan into its calls. Codes and structure follow DICOM PS3.3
// A.51 (Segmentation IOD): a shared Pixel Measures and Plane Orientation
// group; per frame a Plane Position, a Frame Content with the two dimension
// indices (segment number, slice) and a Derivation Image naming the source
// slice with purpose "Source image for image processing operation" (DCM
// 121322) and derivation "Segmentation" (DCM 113076).
#include <dcmtk/config/osconfig.h>  // DCMTK's own configuration must come first

#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcdict.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmfg/fgderimg.h>
#include <dcmtk/dcmfg/fgfracon.h>
#include <dcmtk/dcmfg/fgpixmsr.h>
#include <dcmtk/dcmfg/fgplanor.h>
#include <dcmtk/dcmfg/fgplanpo.h>
#include <dcmtk/dcmiod/cielabutil.h>
#include <dcmtk/dcmiod/iodreferences.h>
#include <dcmtk/dcmseg/segdoc.h>
#include <dcmtk/dcmseg/segment.h>
#include <dcmtk/oflog/oflog.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "core/error.hpp"
#include "volume/dcmtk_seg_io.hpp"

namespace medsynth::dcmtk_detail {

namespace {

void require_dictionary() {
  if (!dcmDataDict.isDictionaryLoaded())
    throw RuntimeError(
        "DCMTK's data dictionary is not loaded (package libdcmtk17: /usr/share/libdcmtk17/dicom.dic; "
        "or set DCMDICTPATH)");
}

// DCMTK logs its warnings to stderr through oflog; our errors say what went
// wrong, so only its errors are shown.
void quiet_dcmtk_warnings() {
  static const bool once = [] {
    OFLog::configure(OFLogger::ERROR_LOG_LEVEL);
    return true;
  }();
  (void)once;
}

void check(const OFCondition& condition, const std::string& what) {
  if (condition.bad()) throw RuntimeError("DICOM-SEG: " + what + ": " + condition.text());
}

std::string ds(double v) {  // a DS value (at most 16 characters)
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", std::fabs(v) < 1e-9 ? 0.0 : v);
  std::string s = buffer;
  if (s.size() > 16) {
    std::snprintf(buffer, sizeof buffer, "%.8g", v);
    s = buffer;
  }
  return s;
}

std::string new_uid(const char* root) {
  char buffer[100];
  return dcmGenerateUniqueIdentifier(buffer, root);
}

std::string text_of(DcmItem& item, const DcmTagKey& tag) {
  OFString value;
  if (item.findAndGetOFStringArray(tag, value).bad()) return {};
  return value.c_str();
}

std::unique_ptr<DcmSegment> make_segment(const DicomSegment& s, const std::string& algorithm) {
  DcmSegment* raw = nullptr;
  check(DcmSegment::create(
            raw, s.name.c_str(),
            CodeSequenceMacro(s.category.value.c_str(), s.category.scheme.c_str(), s.category.meaning.c_str()),
            CodeSequenceMacro(s.type.value.c_str(), s.type.scheme.c_str(), s.type.meaning.c_str()),
            DcmSegTypes::SAT_AUTOMATIC, algorithm.c_str()),
        "segment " + std::to_string(s.label) + " ('" + s.name + "')");
  std::unique_ptr<DcmSegment> segment(raw);
  if (s.modifier)
    segment->getSegmentedPropertyTypeModifierCode().push_back(
        new CodeSequenceMacro(s.modifier->value.c_str(), s.modifier->scheme.c_str(), s.modifier->meaning.c_str()));
  if (s.region) {
    check(segment->getGeneralAnatomyCode().getAnatomicRegion().set(s.region->value.c_str(), s.region->scheme.c_str(),
                                                                   s.region->meaning.c_str()),
          "segment " + std::to_string(s.label) + " anatomic region");
    if (s.region_modifier)
      segment->getGeneralAnatomyCode().getAnatomicRegionModifier().push_back(new CodeSequenceMacro(
          s.region_modifier->value.c_str(), s.region_modifier->scheme.c_str(), s.region_modifier->meaning.c_str()));
  }
  double l = 0, a = 0, b = 0;
  IODCIELabUtil::rgb2DicomLab(l, a, b, s.colour[0], s.colour[1], s.colour[2]);
  const auto u16 = [](double v) { return static_cast<Uint16>(std::lround(std::clamp(v, 0.0, 65535.0))); };
  check(segment->setRecommendedDisplayCIELabValue(u16(l), u16(a), u16(b)), "segment colour");
  return segment;
}

void add_coding_schemes(DcmItem& dataset, const std::vector<DicomCodingScheme>& schemes) {
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    DcmItem* item = nullptr;
    check(dataset.findOrCreateSequenceItem(DCM_CodingSchemeIdentificationSequence, item, static_cast<signed long>(i)),
          "coding scheme identification");
    check(item->putAndInsertString(DCM_CodingSchemeDesignator, schemes[i].designator.c_str()), "coding scheme");
    check(item->putAndInsertString(DCM_CodingSchemeName, schemes[i].name.c_str()), "coding scheme name");
    check(
        item->putAndInsertString(DCM_CodingSchemeResponsibleOrganization, schemes[i].responsible_organization.c_str()),
        "coding scheme organization");
  }
}

void add_shared_groups(DcmSegmentation& seg, const SegPlan& plan) {
  FGPixelMeasures measures;
  check(measures.setPixelSpacing((ds(plan.pixel_spacing[0]) + "\\" + ds(plan.pixel_spacing[1])).c_str()),
        "pixel spacing");
  check(measures.setSliceThickness(ds(plan.slice_thickness).c_str()), "slice thickness");
  check(seg.addForAllFrames(measures), "pixel measures");
  FGPlaneOrientationPatient orientation;
  const auto& o = plan.orientation;
  check(orientation.setImageOrientationPatient(ds(o[0]).c_str(), ds(o[1]).c_str(), ds(o[2]).c_str(), ds(o[3]).c_str(),
                                               ds(o[4]).c_str(), ds(o[5]).c_str()),
        "image orientation");
  check(seg.addForAllFrames(orientation), "plane orientation");
}

void add_frame(DcmSegmentation& seg, const SegPlan& plan, const SegFrame& frame, std::vector<Uint8>& pixels) {
  FGPlanePosPatient position;
  check(position.setImagePositionPatient(ds(frame.position[0]).c_str(), ds(frame.position[1]).c_str(),
                                         ds(frame.position[2]).c_str()),
        "image position");
  FGFrameContent content;
  check(content.setDimensionIndexValues(frame.segment_number, 0), "dimension index (segment)");
  check(content.setDimensionIndexValues(frame.slice + 1, 1), "dimension index (position)");
  ImageSOPInstanceReferenceMacro source;
  check(source.setReferencedSOPClassUID(plan.referenced_sop_class_uid.c_str()), "source SOP class");
  check(source.setReferencedSOPInstanceUID(frame.source_sop_instance_uid.c_str()), "source SOP instance");
  OFVector<ImageSOPInstanceReferenceMacro> sources;
  sources.push_back(source);
  std::unique_ptr<FGDerivationImage> derivation(
      DcmSegmentation::createDerivationImageFG(sources, "Label map of the source image, written by medsynth"));
  if (!derivation) throw RuntimeError("DICOM-SEG: cannot make the derivation image group");
  OFVector<FGBase*> groups;
  groups.push_back(&position);
  groups.push_back(&content);
  groups.push_back(derivation.get());
  plan.fill_frame(frame, pixels);
  check(seg.addFrame(pixels.data(), frame.segment_number, groups),
        "frame of segment " + std::to_string(frame.segment_number) + ", slice " + std::to_string(frame.slice));
}

void add_dimensions(DcmSegmentation& seg) {
  const std::string organization = new_uid(SITE_INSTANCE_UID_ROOT);
  IODMultiframeDimensionModule& dims = seg.getDimensions();
  check(dims.addDimensionIndex(DCM_ReferencedSegmentNumber, organization.c_str(), DCM_SegmentIdentificationSequence,
                               "ReferencedSegmentNumber"),
        "dimension index");
  check(dims.addDimensionIndex(DCM_ImagePositionPatient, organization.c_str(), DCM_PlanePositionSequence,
                               "ImagePositionPatient"),
        "dimension index");
}

void add_references(DcmSegmentation& seg, const SegPlan& plan) {
  IODReferences references;
  for (const auto& instance : plan.referenced_instances) {
    auto* reference = new IODImageReference(IODReference::LEVEL_INSTANCE);
    reference->m_StudyInstanceUID = plan.referenced_study_uid.c_str();
    reference->m_SeriesInstanceUID = plan.referenced_series_uid.c_str();
    reference->m_SOPClassUID = plan.referenced_sop_class_uid.c_str();
    reference->m_SOPInstanceUID = instance.c_str();
    if (!references.add(reference)) {
      delete reference;
      throw RuntimeError("DICOM-SEG: the reference to instance " + instance + " is not valid");
    }
  }
  seg.getCommonInstanceReference().addReferences(references, plan.referenced_study_uid.c_str());
}

}  // namespace

ImageFileIds read_image_ids(const std::string& path) {
  require_dictionary();
  quiet_dcmtk_warnings();
  DcmFileFormat file;
  // Values longer than 256 bytes (the pixel data) stay on disk.
  const OFCondition loaded = file.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, 256);
  if (loaded.bad()) throw DataError(path, std::string("DCMTK cannot read it: ") + loaded.text());
  DcmDataset& data = *file.getDataset();
  ImageFileIds ids;
  ids.sop_class_uid = text_of(data, DCM_SOPClassUID);
  ids.sop_instance_uid = text_of(data, DCM_SOPInstanceUID);
  ids.series_uid = text_of(data, DCM_SeriesInstanceUID);
  ids.study_uid = text_of(data, DCM_StudyInstanceUID);
  ids.frame_of_reference_uid = text_of(data, DCM_FrameOfReferenceUID);
  if (ids.sop_class_uid.empty() || ids.sop_instance_uid.empty())
    throw DataError(path, "no SOP Class UID or SOP Instance UID: it cannot be referenced");
  Float64 row = 0, column = 0;
  if (data.findAndGetFloat64(DCM_PixelSpacing, row, 0).good() &&
      data.findAndGetFloat64(DCM_PixelSpacing, column, 1).good())
    ids.pixel_spacing = std::array<double, 2>{row, column};
  return ids;
}

std::pair<std::string, std::string> save_segmentation(const SegPlan& plan, const std::string& path) {
  require_dictionary();
  quiet_dcmtk_warnings();
  const IODGeneralEquipmentModule::EquipmentInfo equipment("medsynth", "medsynth-engine", "none",
                                                           plan.software_version.c_str());
  const ContentIdentificationMacro content("1", "MEDSYNTH_SEG", "Label map written by medsynth", "MEDSYNTH");
  DcmSegmentation* raw = nullptr;
  check(DcmSegmentation::createBinarySegmentation(raw, plan.rows, plan.columns, equipment, content), "create");
  std::unique_ptr<DcmSegmentation> seg(raw);
  check(seg->importFromSourceImage(plan.first_image_file.c_str()),
        "patient, study and frame of reference from " + plan.first_image_file);
  const std::string series_uid = new_uid(SITE_SERIES_UID_ROOT), instance_uid = new_uid(SITE_INSTANCE_UID_ROOT);
  check(seg->getSeries().setSeriesInstanceUID(series_uid.c_str()), "series UID");
  check(seg->getSeries().setSeriesNumber("300"), "series number");
  check(seg->getSeries().setSeriesDescription(plan.series_description.c_str()), "series description");
  check(seg->getSOPCommon().setSOPInstanceUID(instance_uid.c_str()), "SOP instance UID");
  add_shared_groups(*seg, plan);
  for (const auto& s : plan.segments) {
    auto segment = make_segment(s, plan.algorithm_name);
    Uint16 number = 0;
    check(seg->addSegment(segment.get(), number), "segment " + std::to_string(s.label));
    segment.release();  // owned by the segmentation now
  }
  // One frame unpacked at a time; addFrame copies it packed to bits.
  std::vector<Uint8> pixels(static_cast<std::size_t>(plan.rows) * plan.columns);
  for (const auto& frame : plan.frames) add_frame(*seg, plan, frame, pixels);
  add_dimensions(*seg);
  add_references(*seg, plan);
  // DCMTK's SEG module has no place for the Coding Scheme Identification
  // Sequence: the dataset it writes gets it before the file is saved.
  DcmFileFormat file;
  check(seg->writeDataset(*file.getDataset()), "dataset");
  add_coding_schemes(*file.getDataset(), plan.coding_schemes);
  check(file.saveFile(path.c_str(), EXS_LittleEndianExplicit), "write " + path);
  return {instance_uid, series_uid};
}

}  // namespace medsynth::dcmtk_detail
